import Foundation

extension TrackingClient {
    /// Everything about how Kuroneko talks to Yamato, with polite defaults. The politeness limits are
    /// stated here once; the ``UpstreamScheduler`` and its budget apply them to every caller.
    public struct Configuration: Sendable, Hashable {
        /// Yamato's tracking form.
        public static let yamatoEndpoint = URL(string: "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")!
        /// Names the tool and where to read about it, so Yamato can tell who is asking.
        public static let defaultUserAgent = "Kuroneko/\(KuronekoVersion.version) (+\(KuronekoVersion.homePage))"

        /// Whose site this client asks: every number it is given goes there.
        public var carrier: Carrier = .yamato
        /// Where the carrier's site is: for Yamato the tracking form's URL, for the others the origin their
        /// real paths go under; point it at a simulator or fake in tests.
        public var endpoint: URL
        /// How long one POST may take before it counts as a timeout (less when the waiters' deadlines are
        /// nearer).
        public var requestTimeout: Duration
        public var userAgent: String
        /// The most POSTs in flight at once.
        public var maxConcurrentRequests: Int
        /// The least time between the starts of two POSTs.
        public var minimumRequestInterval: Duration
        public var retry: RetryPolicy
        /// How long the first queued number waits for others before a POST of fewer than ten leaves.
        public var batchWindow: Duration
        public var circuitBreaker: CircuitBreakerPolicy
        /// The most numbers waiting for a POST; lookups beyond it are refused with `overloaded`.
        public var queueCapacity: Int
        /// How long a lookup may wait for its answer, queue included, unless the caller says otherwise;
        /// `nil` waits as long as it takes.
        public var lookupDeadline: Duration?
        /// A PEM file of the certificate authorities to trust for https instead of the system's (`--ca-file`),
        /// for the default transport.
        public var caFile: String?

        /// - Parameters:
        ///   - endpoint: default Yamato's `https://toi.kuronekoyamato.co.jp/cgi-bin/tneko`.
        ///   - requestTimeout: default 15 s.
        ///   - userAgent: default `Kuroneko/<version> (+<home page>)`.
        ///   - maxConcurrentRequests: default 2.
        ///   - minimumRequestInterval: default 1 s.
        ///   - retry: default up to 2 retries, backoff from 1 s doubling to at most 8 s, with jitter.
        ///   - batchWindow: default 20 ms.
        ///   - circuitBreaker: default open after 5 failed POSTs in a row, for 30 s.
        ///   - queueCapacity: default 10,000 numbers.
        ///   - lookupDeadline: default none.
        public init(
            endpoint: URL = yamatoEndpoint,
            requestTimeout: Duration = .seconds(15),
            userAgent: String = defaultUserAgent,
            maxConcurrentRequests: Int = 2,
            minimumRequestInterval: Duration = .seconds(1),
            retry: RetryPolicy = RetryPolicy(),
            batchWindow: Duration = .milliseconds(20),
            circuitBreaker: CircuitBreakerPolicy = CircuitBreakerPolicy(),
            queueCapacity: Int = 10_000,
            lookupDeadline: Duration? = nil
        ) {
            self.endpoint = endpoint
            self.requestTimeout = requestTimeout
            self.userAgent = userAgent
            self.maxConcurrentRequests = maxConcurrentRequests
            self.minimumRequestInterval = minimumRequestInterval
            self.retry = retry
            self.batchWindow = batchWindow
            self.circuitBreaker = circuitBreaker
            self.queueCapacity = max(1, queueCapacity)
            self.lookupDeadline = lookupDeadline
        }
    }
}

extension TrackingClient.Configuration {
    /// The defaults for one carrier: its site, and the politeness its definition states.
    public static func defaults(for carrier: Carrier) -> TrackingClient.Configuration {
        let definition = carrier.definition
        var configuration = TrackingClient.Configuration()
        configuration.carrier = carrier
        configuration.endpoint = definition.defaultEndpoint
        configuration.maxConcurrentRequests = definition.politeness.maxConcurrentRequests
        configuration.minimumRequestInterval = definition.politeness.minimumRequestInterval
        return configuration
    }
}
