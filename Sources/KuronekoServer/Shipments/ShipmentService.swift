import Foundation
import Kuroneko
import Synchronization

/// Answers lookups from the cache when it can, and otherwise through the carriers' clients, whose
/// ``UpstreamScheduler``s coalesce, batch, pace, shed and break the circuit for every lookup of the process,
/// each carrier apart.
///
public final class ShipmentService: Sendable {
    public struct Configuration: Sendable {
        public var cache: ShipmentCache.Policy
        /// The least time between two `?refresh=1` fetches of the same number; more are served from cache.
        public var refreshInterval: Duration

        /// - Parameters: defaults: the cache policy's defaults, 10 s.
        public init(cache: ShipmentCache.Policy = .init(), refreshInterval: Duration = .seconds(10)) {
            self.cache = cache
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
    public let client: MultiCarrierClient
    private let clock: any TrackingClock
    private let metrics: Metrics
    /// When each number was last refreshed on request (at most about the cache's capacity of them).
    private let lastRefresh = Mutex<[TrackingNumber: Duration]>([:])
    /// Told of every fresh answer from Yamato, whoever asked (the watch list records it).
    private let fetched: (@Sendable (Shipment, Date, Data) async -> Void)?
    /// Where copies fetched by other servers are found (a shared database), and when they were fetched.
    private let shared: (@Sendable (TrackingNumber) async -> (Shipment, Date)?)?

    /// - Parameters:
    ///   - fetched: told of every fresh answer from Yamato, on the task that fetched it, with the JSON the
    ///     API serves it as (made once, for the cache).
    ///   - shared: asked on a cache miss for a copy another server fetched; a copy still fresh by the cache
    ///     policy is served (and cached) without asking Yamato.
    public init(
        client: MultiCarrierClient, clock: any TrackingClock, metrics: Metrics, configuration: Configuration,
        fetched: (@Sendable (Shipment, Date, Data) async -> Void)? = nil,
        shared: (@Sendable (TrackingNumber) async -> (Shipment, Date)?)? = nil
    ) {
        self.shared = shared
        self.configuration = configuration
        self.client = client
        self.clock = clock
        self.metrics = metrics
        self.fetched = fetched
        cache = ShipmentCache(policy: configuration.cache)
    }

    /// A fresh cached answer, or `nil`; never waits, so the HTTP adapter can call it on its own thread.
    /// - Parameter now: the time to judge freshness by, when the caller has read the clock already.
    /// - Parameter carrier: the carrier asked for; a cached answer of another carrier is no answer.
    public func freshCachedEntry(for number: TrackingNumber, carrier: Carrier? = nil, at now: Date? = nil)
        -> ShipmentCache.Entry?
    {
        guard let entry = cache.entry(for: number), carrier == nil || entry.shipment.carrier == carrier,
            entry.isFresh(at: now ?? clock.now)
        else { return nil }
        metrics.recordCacheLookup(.hit)
        return entry
    }

    /// Whether POSTs may go to Yamato: closed, half-open (the next POST is a probe) or open.
    public var circuitState: CircuitState { client.clients[.yamato]?.scheduler.statistics.circuit ?? .closed }
    /// Each carrier's circuit, by carrier.
    public var circuitStates: [Carrier: CircuitState] { client.clients.mapValues { $0.scheduler.statistics.circuit } }

    /// Each carrier's scheduler statistics, for metrics.
    public var upstreamStatistics: [Carrier: UpstreamStatistics] {
        client.clients.mapValues(\.scheduler.statistics)
    }

    /// Looks many numbers up at once, each as ``lookup(_:refresh:)`` would.
    /// - Parameter numbers: `nil` where the input was not a number (skipped).
    /// - Returns: each number's outcome, by its place in `numbers`.
    public func lookup(_ numbers: [TrackingNumber?], carrier: Carrier? = nil, refresh: Bool = false) async
        -> [Int: Outcome]
    {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, number) in numbers.enumerated() {
                guard let number else { continue }
                group.addTask { (index, await self.lookup(number, carrier: carrier, refresh: refresh)) }
            }
            var outcomes: [Int: Outcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// Looks a number up: interactive, or at refresh priority for `refresh`.
    /// - Parameters:
    ///   - carrier: ask this carrier (a cached answer of another is not used); `nil` finds the carrier.
    ///   - refresh: skip a fresh cached answer (rate limited per number by `refreshInterval`).
    public func lookup(_ number: TrackingNumber, carrier: Carrier? = nil, refresh: Bool = false) async -> Outcome {
        var cached = cache.entry(for: number).flatMap { carrier == nil || $0.shipment.carrier == carrier ? $0 : nil }
        let refreshing = refresh && mayRefresh(number)
        if !refreshing, cached?.isFresh(at: clock.now) != true, let (shipment, fetchedAt) = await shared?(number),
            fetchedAt > cached?.fetchedAt ?? .distantPast
        {
            cached = cache.store(shipment, fetchedAt: fetchedAt)
        }
        if let cached, cached.isFresh(at: clock.now), !refreshing {
            metrics.recordCacheLookup(.hit)
            return .fresh(cached, fromCache: true)
        }
        return await fetch(number, carrier: carrier, priority: refreshing ? .refresh : .interactive, cached: cached)
    }

    /// Takes a copy another server fetched (told through the shared database) when it is newer than the
    /// cached one, so every server serves the latest answer any of them got.
    /// - Returns: whether this server now serves another status for the number than the one it had cached
    ///   (`false` when it had none cached, or the copy was not newer).
    @discardableResult
    public func adopt(_ shipment: Shipment, fetchedAt: Date) -> Bool {
        let cached = cache.entry(for: shipment.trackingNumber)
        if let cached, cached.fetchedAt >= fetchedAt { return false }
        cache.store(shipment, fetchedAt: fetchedAt)
        return cached.map { $0.shipment.status.code != shipment.status.code } ?? false
    }

    /// Asks Yamato now, whatever the cache holds (the poller at background priority, a watch's refresh at
    /// refresh priority); the answer is cached and recorded like any other.
    public func check(_ number: TrackingNumber, carrier: Carrier? = nil, priority: UpstreamPriority) async -> Outcome {
        await fetch(number, carrier: carrier, priority: priority, cached: cache.entry(for: number))
    }

    private func fetch(
        _ number: TrackingNumber, carrier: Carrier?, priority: UpstreamPriority, cached: ShipmentCache.Entry?
    ) async -> Outcome {
        do {
            let shipment = try await client.track(number, carrier: carrier, priority: priority)
            let now = clock.now
            // A carrier named that does not know the number says nothing of the others: not cached over
            // what the number's own carrier answered.
            let keep = carrier == nil || shipment.status.code != .notFound || cached == nil
            let entry =
                keep
                ? cache.store(shipment, fetchedAt: now)
                : ShipmentCache.Entry(shipment: shipment, fetchedAt: now, expiresAt: now)
            metrics.recordCacheLookup(.miss)
            await fetched?(shipment, now, entry.json)
            return .fresh(entry, fromCache: false)
        } catch {
            return fallback(cached, ServiceError(error))
        }
    }

    private func fallback(_ cached: ShipmentCache.Entry?, _ error: ServiceError) -> Outcome {
        guard let cached else { return .failed(error) }
        metrics.recordCacheLookup(.stale)
        return .stale(cached, error)
    }

    private func mayRefresh(_ number: TrackingNumber) -> Bool {
        let now = clock.uptime
        let interval = configuration.refreshInterval
        let capacity = configuration.cache.capacity
        return lastRefresh.withLock { lastRefresh in
            if let last = lastRefresh[number], now - last < interval { return false }
            lastRefresh[number] = now
            if lastRefresh.count > capacity {
                lastRefresh = lastRefresh.filter { now - $0.value < interval }
            }
            return true
        }
    }
}

/// Why a lookup could not be answered from upstream, with the HTTP status that tells the client what to do.
public struct ServiceError: Error, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The upstream answered a page the parser refused, or an HTTP error: 502.
        case badUpstream
        /// The upstream did not answer in time, or not before the lookup's deadline: 504.
        case upstreamTimeout
        /// Not asked now (the circuit is open, or the queue ahead is longer than the deadline): 503 with
        /// Retry-After.
        case unavailable(retryAfter: Duration)
        /// The client went away before the answer: nobody reads this one.
        case cancelled
    }

    public let kind: Kind
    public let message: String
    /// The lookup's error code (``TrackingError/Code``), e.g. `upstream_body_too_large`; `nil` when not a
    /// tracking error.
    public let reason: String?

    init(_ error: any Error) {
        reason = (error as? TrackingError)?.code.rawValue
        switch error {
        case let tracking as TrackingError:
            message = tracking.message
            switch tracking.code {
            case .timeout, .deadlineExceeded: kind = .upstreamTimeout
            case .overloaded, .circuitOpen, .shuttingDown:
                kind = .unavailable(retryAfter: tracking.retryAfter ?? .seconds(1))
            default: kind = .badUpstream
            }
        case is CancellationError:
            kind = .cancelled
            message = "the lookup was cancelled"
        default:
            kind = .badUpstream
            message = "the upstream lookup failed: \(error)"
        }
    }

    public var status: Int {
        switch kind {
        case .badUpstream: 502
        case .upstreamTimeout: 504
        case .unavailable, .cancelled: 503
        }
    }
}
