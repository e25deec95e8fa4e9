/// Request methods as a closed set, for metric labels and log fields: a client can send any token as a
/// method, and every distinct one must not become a new time series or a line that breaks a log parser.
public enum HTTPMethod {
    public static let known: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]

    /// The method if it is a known one, else `other`. (A switch: comparing short ASCII strings costs less
    /// than hashing one, and this runs for every request.)
    public static func label(_ method: String) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH": method
        default: "other"
        }
    }
}
