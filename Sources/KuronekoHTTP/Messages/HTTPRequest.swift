import Foundation

/// An HTTP request as the application sees it: no sockets, just values.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, percent-decoded.
    public var path: String
    /// Query parameters in order; a name may repeat.
    public var query: [(name: String, value: String)]
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data
    /// When the request was complete, in monotonic nanoseconds (`DispatchTime.uptimeNanoseconds`).
    public var receivedAt: UInt64
    /// The request's id, echoed as `X-Request-ID` and written in the access log; set by
    /// ``RequestIDMiddleware``.
    public var id: String?
    /// Who the request comes from, as an authentication middleware established it (`nil`: nobody did).
    public var principal: String?

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: Data = Data(), receivedAt: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) {
        self.receivedAt = receivedAt
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }

    /// The adapter's: header names already in lower case.
    init(
        method: String, path: String, query: [(name: String, value: String)], lowercasedHeaders: [String: String],
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
