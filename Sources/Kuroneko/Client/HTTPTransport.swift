import Foundation

/// Sends one HTTP request upstream. The only network-facing piece of the client; tests substitute a fake.
public protocol HTTPTransport: Sendable {
    /// - Throws: ``TransportError`` for failures below HTTP, `CancellationError` when cancelled.
    func send(_ request: UpstreamRequest) async throws -> UpstreamResponse
}

/// An HTTP request to the tracking page.
public struct UpstreamRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    public var headers: [String: String]
    public var body: Data
    public var timeout: Duration

    public init(url: URL, method: String, headers: [String: String], body: Data, timeout: Duration) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What the upstream answered.
public struct UpstreamResponse: Sendable, Hashable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }

    /// The `charset` parameter of `Content-Type`, if the response declares one.
    public var declaredCharset: String? {
        guard let contentType = headers["content-type"] else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "charset" {
                let value = pair[1].trimmingWhitespace().trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }
}

/// A failure below HTTP: no answer arrived.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No complete answer within the request timeout.
        case timeout
        /// The connection could not be made or broke.
        case connection
        /// The answer's body was larger than the transport reads (declared, or as decoded).
        case bodyTooLarge
        /// The address guard refused where the request would have gone; nothing was sent.
        case refused
        /// Anything else the HTTP stack refused (a malformed URL, TLS failure, …).
        case other
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
