import Foundation

extension TrackingClient {
    /// Everything about how the client talks to Yamato, with polite defaults.
    public struct Configuration: Sendable, Hashable {
        /// Yamato's tracking form.
        public static let yamatoEndpoint = URL(string: "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")!
        /// Names the tool and where to read about it, so Yamato can tell who is asking.
        public static let defaultUserAgent = "Kuroneko/\(Kuroneko.version) (+\(Kuroneko.homePage))"

        /// Where the tracking form is posted; point it at a simulator or fake in tests.
        public var endpoint: URL
        /// How long one request may take before it counts as a timeout.
        public var requestTimeout: Duration
        public var userAgent: String
        /// The most upstream requests in flight at once.
        public var maxConcurrentRequests: Int
        /// The least time between the starts of two upstream requests.
        public var minimumRequestInterval: Duration
        public var retry: RetryPolicy

        /// - Parameters:
        ///   - endpoint: default Yamato's `https://toi.kuronekoyamato.co.jp/cgi-bin/tneko`.
        ///   - requestTimeout: default 15 s.
        ///   - userAgent: default `Kuroneko/<version> (+<home page>)`.
        ///   - maxConcurrentRequests: default 2.
        ///   - minimumRequestInterval: default 1 s.
        ///   - retry: default up to 2 retries, backoff from 1 s doubling to at most 8 s, with jitter.
        public init(
            endpoint: URL = yamatoEndpoint,
            requestTimeout: Duration = .seconds(15),
            userAgent: String = defaultUserAgent,
            maxConcurrentRequests: Int = 2,
            minimumRequestInterval: Duration = .seconds(1),
            retry: RetryPolicy = RetryPolicy()
        ) {
            self.endpoint = endpoint
            self.requestTimeout = requestTimeout
            self.userAgent = userAgent
            self.maxConcurrentRequests = maxConcurrentRequests
            self.minimumRequestInterval = minimumRequestInterval
            self.retry = retry
        }
    }
}
