/// A lookup failed: the upstream could not be reached, answered an error, or answered a page the parser refused.
public struct TrackingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No answer within the request timeout, on every attempt.
        public static let timeout = Code(rawValue: "timeout")
        /// The upstream could not be reached, on every attempt.
        public static let connection = Code(rawValue: "connection")
        /// The upstream answered with an HTTP error status.
        public static let httpStatus = Code(rawValue: "http_status")
        /// The upstream answered a page the parser refused; see ``TrackingError/pageError``.
        public static let page = Code(rawValue: "page")
        /// Any other transport failure.
        public static let transport = Code(rawValue: "transport")
    }

    public let code: Code
    /// One line saying what went wrong.
    public let message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public let httpStatus: Int?
    /// The parser's refusal, for ``Code/page``.
    public let pageError: TrackingPageError?

    public init(_ code: Code, _ message: String, httpStatus: Int? = nil, pageError: TrackingPageError? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.pageError = pageError
    }

    public var description: String { message }
}
