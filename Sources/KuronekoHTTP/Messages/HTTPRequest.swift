import Foundation

/// An HTTP request as the application sees it: no sockets, just values.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, percent-decoded.
    public var path: String
    /// Query parameters in order; a name may repeat.
    public var query: [(name: String, value: String)]
    /// Header names in lower case.
    public var headers: HTTPFields
    public var body: Data
    /// When the request was complete, in monotonic nanoseconds (`DispatchTime.uptimeNanoseconds`).
    public var receivedAt: UInt64
    /// The request's id, echoed as `X-Request-ID` and written in the access log; set by
    /// ``RequestIDMiddleware``.
    public var id: String?
    /// Who the request comes from, as an authentication middleware established it (`nil`: nobody did).
    public var principal: String?
    /// What the server's own layers attached (the caller's role and member, for the routes and the audit log).
    public var context = RequestContext()
    /// A number naming the address the connection came from (an IPv4 address, or a folded IPv6 one), set by the
    /// adapter from the socket, never from a header; 0 when unknown (a request made in-process).
    public var client: UInt64 = 0

    /// Whether the connection came from this machine (127.0.0.0/8 or ::1): a reverse proxy, or a local client.
    public var clientIsLoopback: Bool {
        if client == (1 | (1 << 63)) { return true }
        guard client != 0, client < (1 << 63) else { return false }
        return UInt32(bigEndian: UInt32(truncatingIfNeeded: client - 1)) >> 24 == 127
    }

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: Data = Data(), receivedAt: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) {
        self.receivedAt = receivedAt
        self.method = method
        self.path = path
        self.query = query
        self.headers = HTTPFields(headers)
        self.body = body
    }

    /// The adapter's: header names already in lower case.
    init(
        method: String, path: String, query: [(name: String, value: String)], lowercasedHeaders: HTTPFields,
        body: Data
    ) {
        self.receivedAt = DispatchTime.now().uptimeNanoseconds
        self.method = method
        self.path = path
        self.query = query
        self.headers = lowercasedHeaders
        self.body = body
    }

    /// Splits a request target such as `/v1/shipments?numbers=1,2` into path and query.
    public init(method: String, target: String, headers: [String: String] = [:], body: Data = Data()) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        self.init(
            method: method, path: path.removingPercentEncoding ?? path,
            query: parts.count > 1 ? FormEncoding.decode(String(parts[1])) : [], headers: headers, body: body)
    }

    /// A header's value; `name` in lower case.
    public func header(_ name: String) -> String? { headers[name] }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// A request's header fields by lower-case name, a name that repeats holding its values joined with ", "
/// (RFC 9110, section 5.3). Kept as a short list searched in order rather than a dictionary: a request has a
/// handful of fields, and comparing a few short names costs less than hashing each one, on every request.
public struct HTTPFields: Sendable, ExpressibleByDictionaryLiteral {
    private var fields: [(name: String, value: String)] = []

    public init() {}

    /// Fields from a dictionary, the names lower-cased.
    public init(_ fields: [String: String]) {
        for (name, value) in fields { self[name.lowercased()] = value }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name.lowercased()] = value }
    }

    /// The value of a field, `name` in lower case; setting replaces it (`nil` removes it).
    public subscript(name: String) -> String? {
        get {
            for field in fields where field.name == name { return field.value }
            return nil
        }
        set {
            if let index = fields.firstIndex(where: { $0.name == name }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name, newValue))
            }
        }
    }

    /// Adds a value of a lower-case name, after any earlier values of it (joined with ", ").
    mutating func add(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            fields[index].value += ", " + value
        } else {
            fields.append((name, value))
        }
    }

    public var count: Int { fields.count }
}

/// `application/x-www-form-urlencoded`, as query strings and form bodies use it.
public enum FormEncoding {
    /// The name/value pairs in order; `+` is a space and `%XX` a byte.
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").map { field in
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (component(pair[0]), pair.count > 1 ? component(pair[1]) : "")
        }
    }

    private static func component(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
