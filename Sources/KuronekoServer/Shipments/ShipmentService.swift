import Foundation
import Kuroneko

/// Answers lookups from the cache when it can, and otherwise from Yamato, as politely as possible: one
/// fetch per number however many ask, ten numbers per POST, and no calls at all while the circuit is open.
///
/// `@unchecked Sendable`: the breaker and the refresh times are guarded by `lock`; everything else is
/// immutable or Sendable.
public final class ShipmentService: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var cache: ShipmentCache.Policy
        /// How long lookups are gathered before a POST leaves with fewer than ten numbers.
        public var batchWindow: Duration
        /// Upstream failures in a row that open the circuit.
        public var breakerFailureThreshold: Int
        /// How long the circuit stays open before one probe is let through.
        public var breakerCoolDown: Duration
        /// The least time between two `?refresh=1` fetches of the same number; more are served from cache.
        public var refreshInterval: Duration

        /// - Parameters: defaults: the cache policy's defaults, 20 ms, 5 failures, 30 s, 10 s.
        public init(
            cache: ShipmentCache.Policy = .init(), batchWindow: Duration = .milliseconds(20),
            breakerFailureThreshold: Int = 5, breakerCoolDown: Duration = .seconds(30),
            refreshInterval: Duration = .seconds(10)
        ) {
            self.cache = cache
            self.batchWindow = batchWindow
            self.breakerFailureThreshold = breakerFailureThreshold
            self.breakerCoolDown = breakerCoolDown
            self.refreshInterval = refreshInterval
        }
    }

    /// How a lookup was answered.
    public enum Outcome: Sendable {
        /// From the cache (`fromCache`) or just fetched.
        case fresh(ShipmentCache.Entry, fromCache: Bool)
        /// The upstream failed; this older copy is the best there is.
        case stale(ShipmentCache.Entry, ServiceError)
        case failed(ServiceError)
    }

    public let configuration: Configuration
    public let cache: ShipmentCache
    private let fetcher: ShipmentFetcher
    private let clock: any TrackingClock
    private let metrics: Metrics
    private let lock = NSLock()
    private var breaker: CircuitBreaker
    private var lastRefresh: [TrackingNumber: Duration] = [:]

    public init(client: TrackingClient, clock: any TrackingClock, metrics: Metrics, configuration: Configuration) {
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        cache = ShipmentCache(policy: configuration.cache)
        fetcher = ShipmentFetcher(client: client, clock: clock, window: configuration.batchWindow, metrics: metrics)
        breaker = CircuitBreaker(
            failureThreshold: configuration.breakerFailureThreshold, coolDown: configuration.breakerCoolDown)
    }

    /// A fresh cached answer, or `nil`; never waits, so the HTTP adapter can call it on its own thread.
    public func freshCachedEntry(for number: TrackingNumber) -> ShipmentCache.Entry? {
        guard let entry = cache.entry(for: number), entry.isFresh(at: clock.now) else { return nil }
        metrics.recordCacheLookup("hit")
        return entry
    }

    /// Whether the circuit is open (the upstream is being left alone).
    public var isCircuitOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return breaker.isOpen
    }

    /// Looks a number up.
    /// - Parameter refresh: skip a fresh cached answer (rate limited per number by `refreshInterval`).
    public func lookup(_ number: TrackingNumber, refresh: Bool = false) async -> Outcome {
        let cached = cache.entry(for: number)
        if let cached, cached.isFresh(at: clock.now), !(refresh && mayRefresh(number)) {
            metrics.recordCacheLookup("hit")
            return .fresh(cached, fromCache: true)
        }
        if case .rejected(let retryAfter) = permission() {
            return fallback(cached, .circuitOpen(retryAfter: retryAfter))
        }
        do {
            let shipment = try await fetcher.shipment(for: number)
            record(success: true)
            let entry = cache.store(shipment, fetchedAt: clock.now)
            metrics.recordCacheLookup("miss")
            return .fresh(entry, fromCache: false)
        } catch {
            let failure = ServiceError(error)
            if failure.countsAgainstUpstream { record(success: false) }
            return fallback(cached, failure)
        }
    }

    private func fallback(_ cached: ShipmentCache.Entry?, _ error: ServiceError) -> Outcome {
        guard let cached else { return .failed(error) }
        metrics.recordCacheLookup("stale")
        return .stale(cached, error)
    }

    private func permission() -> CircuitBreaker.Permission {
        lock.lock()
        defer { lock.unlock() }
        return breaker.permission(at: clock.uptime)
    }

    private func record(success: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if success { breaker.recordSuccess() } else { breaker.recordFailure(at: clock.uptime) }
    }

    private func mayRefresh(_ number: TrackingNumber) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let now = clock.uptime
        if let last = lastRefresh[number], now - last < configuration.refreshInterval { return false }
        lastRefresh[number] = now
        if lastRefresh.count > configuration.cache.capacity {
            lastRefresh = lastRefresh.filter { now - $0.value < configuration.refreshInterval }
        }
        return true
    }
}

/// Why a lookup could not be answered from upstream, with the HTTP status that tells the client what to do.
public struct ServiceError: Error, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The upstream answered a page the parser refused, or an HTTP error: 502.
        case badUpstream
        /// The upstream did not answer in time: 504.
        case upstreamTimeout
        /// The circuit is open: 503 with Retry-After.
        case circuitOpen(retryAfter: Duration)
    }

    public let kind: Kind
    public let message: String

    init(_ error: any Error) {
        switch error {
        case let tracking as TrackingError where tracking.code == .timeout:
            kind = .upstreamTimeout
            message = tracking.message
        case let tracking as TrackingError:
            kind = .badUpstream
            message = tracking.message
        default:
            kind = .badUpstream
            message = "the upstream lookup failed: \(error)"
        }
    }

    static func circuitOpen(retryAfter: Duration) -> ServiceError {
        ServiceError(
            kind: .circuitOpen(retryAfter: retryAfter),
            message: "Yamato's page has failed repeatedly; lookups are paused to let it recover")
    }

    private init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Failures of the upstream itself count towards opening the circuit; an open circuit does not.
    var countsAgainstUpstream: Bool {
        if case .circuitOpen = kind { return false }
        return true
    }

    public var status: Int {
        switch kind {
        case .badUpstream: 502
        case .upstreamTimeout: 504
        case .circuitOpen: 503
        }
    }
}
