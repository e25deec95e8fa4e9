/// A lookup failed: the upstream could not be reached, answered an error, or answered a page the parser
/// refused; or the scheduler could not ask it in time.
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
        /// The upstream answered a page the parser refused because it was cut off, empty or a denial; see
        /// ``TrackingError/pageError``.
        public static let page = Code(rawValue: "page")
        /// The carrier's page is not laid out as the parser knows it (a redesign, most likely): nothing on it
        /// is guessed; see ``TrackingError/pageError`` and ``TrackingError/carrier``.
        public static let pageNotUnderstood = Code(rawValue: "page_not_understood")
        /// The upstream's answer was larger than a tracking page may be (declared, or once decoded): not read.
        public static let upstreamBodyTooLarge = Code(rawValue: "upstream_body_too_large")
        /// Any other transport failure.
        public static let transport = Code(rawValue: "transport")
        /// The queue ahead is longer than the lookup's deadline allows (or full): not queued; see
        /// ``TrackingError/retryAfter``.
        public static let overloaded = Code(rawValue: "overloaded")
        /// Recent POSTs kept failing, so nothing is sent for a while; see ``TrackingError/retryAfter``.
        public static let circuitOpen = Code(rawValue: "circuit_open")
        /// The lookup's deadline passed before an answer came.
        public static let deadlineExceeded = Code(rawValue: "deadline_exceeded")
        /// The scheduler is stopping (the server is shutting down): nothing more is sent.
        public static let shuttingDown = Code(rawValue: "shutting_down")
        /// No client here serves the carrier (or carriers) the number would be looked up at.
        public static let carrierUnavailable = Code(rawValue: "carrier_unavailable")
    }

    public let code: Code
    /// One line saying what went wrong.
    public let message: String
    /// The HTTP status, for ``Code/httpStatus``.
    public let httpStatus: Int?
    /// The parser's refusal, for ``Code/page``.
    public let pageError: TrackingPageError?
    /// When asking again may succeed, for ``Code/overloaded`` and ``Code/circuitOpen``.
    public let retryAfter: Duration?
    /// The carrier whose page was refused, for ``Code/page`` and ``Code/pageNotUnderstood``.
    public let carrier: Carrier?

    public init(
        _ code: Code, _ message: String, httpStatus: Int? = nil, pageError: TrackingPageError? = nil,
        retryAfter: Duration? = nil, carrier: Carrier? = nil
    ) {
        self.carrier = carrier
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.pageError = pageError
        self.retryAfter = retryAfter
    }

    public var description: String { message }

    static func overloaded(estimatedWait: Duration, deadline: Duration?, queueFull: Bool, carrier: String = "Yamato")
        -> TrackingError
    {
        let wait = seconds(estimatedWait)
        let reason =
            queueFull
            ? "the upstream queue is full"
            : "about \(wait) s of lookups to \(carrier) are queued ahead, more than the \(seconds(deadline ?? .zero)) s "
                + "deadline allows"
        return TrackingError(.overloaded, "\(reason); try again in \(wait) s", retryAfter: estimatedWait)
    }

    static func circuitOpen(retryAfter: Duration, failures: Int, carrier: String = "Yamato") -> TrackingError {
        TrackingError(
            .circuitOpen,
            "\(carrier)'s page failed \(failures) times in a row; lookups are paused for \(seconds(retryAfter)) s "
                + "to let it recover",
            retryAfter: retryAfter)
    }

    static let shuttingDown = TrackingError(
        .shuttingDown, "the server is stopping and sends nothing more to Yamato; ask again in a moment",
        retryAfter: .seconds(1))

    static let deadlineExceeded = TrackingError(
        .deadlineExceeded, "Yamato did not answer before the lookup's deadline")

    /// Whole seconds, rounded up, at least 1: what `Retry-After` says.
    static func seconds(_ duration: Duration) -> Int {
        max(1, Int((duration / .seconds(1)).rounded(.up)))
    }
}
