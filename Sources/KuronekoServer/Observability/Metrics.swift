import CoreMetrics
import Foundation
import Kuroneko
import KuronekoHTTP
import Synchronization

/// The lookups' and the carriers' figures for `GET /metrics`, through swift-metrics into the server's
/// ``MetricsRegistry``: cache lookups and upstream attempts counted as they happen, each carrier's scheduler
/// levels and totals, the cache's size, the build and the process read when scraped.
public final class Metrics: Sendable {
    /// How a lookup was answered from the cache.
    enum CacheResult: Int, CaseIterable {
        case hit, miss, stale

        var label: String {
            switch self {
            case .hit: "hit"
            case .miss: "miss"
            case .stale: "stale"
            }
        }
    }

    /// One carrier's upstream handles, made on its first attempt.
    private struct Upstream {
        let requests: CoreMetrics.Counter
        let failures: CoreMetrics.Counter
        let duration: CoreMetrics.Recorder
        let batchSize: CoreMetrics.Recorder
        /// Refused pages by the parser's code (a fixed set of stable codes).
        var refused: [String: CoreMetrics.Counter] = [:]
    }

    /// The registry `/metrics` is written from (the HTTP layer's counters are in it too).
    public let registry: MetricsRegistry
    private let lookups: [CoreMetrics.Counter]
    private let upstream = Mutex([Carrier: Upstream]())
    private let startedAt = Date()

    public init(registry: MetricsRegistry = MetricsRegistry()) {
        self.registry = registry
        lookups = CacheResult.allCases.map {
            registry.counter(
                "kuroneko_cache_lookups_total", [("result", $0.label)], help: "Shipment cache lookups, by result.")
        }
        registry.level(
            "kuroneko_build_info", [("version", KuronekoVersion.version)], help: "The running version.", value: 1)
    }

    func recordCacheLookup(_ result: CacheResult) {
        lookups[result.rawValue].increment()
    }

    /// Counts one of Yamato's request attempts as it ended; give this to Yamato's client as its observer.
    public func recordUpstream(_ report: UpstreamPostReport) {
        record(report, carrier: .yamato)
    }

    /// The observer for one carrier's client: its attempts counted under its `carrier` label.
    public func upstreamObserver(for carrier: Carrier) -> @Sendable (UpstreamPostReport) -> Void {
        { [self] report in record(report, carrier: carrier) }
    }

    func record(_ report: UpstreamPostReport, carrier: Carrier) {
        let (handles, refused) = upstream.withLock { all -> (Upstream, CoreMetrics.Counter?) in
            var handles = all[carrier] ?? Self.handles(carrier, registry)
            var refused: CoreMetrics.Counter?
            if let code = report.refusedPage?.error.code.rawValue {
                refused =
                    handles.refused[code]
                    ?? registry.counter(
                        "kuroneko_upstream_refused_pages_total", [("carrier", carrier.rawValue), ("reason", code)],
                        help: "Pages the parser refused, by carrier and reason (page_not_understood's codes, truncated, blocked …).")
                handles.refused[code] = refused
            }
            all[carrier] = handles
            return (handles, refused)
        }
        handles.requests.increment(by: report.requests)
        if report.failed { handles.failures.increment() }
        handles.duration.record(report.seconds)
        handles.batchSize.record(Double(report.numbers))
        refused?.increment()
    }

    private static func handles(_ carrier: Carrier, _ registry: MetricsRegistry) -> Upstream {
        let labels = [("carrier", carrier.rawValue)]
        return Upstream(
            requests: registry.counter(
                "kuroneko_upstream_requests_total", labels, help: "Requests sent to the carriers' tracking sites."),
            failures: registry.counter(
                "kuroneko_upstream_failures_total", labels, help: "Requests that failed (each attempt counts)."),
            duration: registry.histogram(
                "kuroneko_upstream_request_duration_seconds", labels, buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
                help: "Time for one request attempt."),
            batchSize: registry.histogram(
                "kuroneko_upstream_batch_size", labels, buckets: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                help: "Tracking numbers per upstream request."))
    }

    /// Sets what is read when scraped: each carrier's scheduler levels and totals, the cache's size, the process.
    public func refresh(upstream statistics: [Carrier: UpstreamStatistics] = [:], cacheEntries: Int? = nil) {
        for carrier in Carrier.allCases {
            guard let all = statistics[carrier] else { continue }
            // A carrier served but not asked yet shows its counters at zero.
            upstream.withLock { $0[carrier] = $0[carrier] ?? Self.handles(carrier, registry) }
            Self.record(all, of: carrier, into: registry)
        }
        if let cacheEntries {
            registry.level("kuroneko_cache_entries", help: "Shipments in the cache.", value: Double(cacheEntries))
        }
        ProcessMetrics.record(startedAt: startedAt, into: registry)
    }

    private static func record(_ all: UpstreamStatistics, of carrier: Carrier, into registry: MetricsRegistry) {
        let labels = [("carrier", carrier.rawValue)]
        for priority in UpstreamPriority.allCases {
            registry.level(
                "kuroneko_upstream_queue_length", labels + [("priority", "\(priority)")],
                help: "Numbers waiting for a request, by carrier and priority.", value: Double(all.queued[priority] ?? 0))
        }
        registry.level(
            "kuroneko_upstream_estimated_wait_seconds", labels,
            help: "What a new interactive lookup would wait for its answer now.", value: all.estimatedWait / .seconds(1))
        registry.level("kuroneko_upstream_in_flight", labels, help: "Requests under way.", value: Double(all.inFlight))
        registry.level(
            "kuroneko_upstream_circuit_state", labels,
            help: "The circuit to the carrier: 0 closed, 1 half-open, 2 open.", value: Double(all.circuit.gaugeValue))
        registry.total(
            "kuroneko_upstream_shed_total", labels,
            help: "Lookups answered 503 at once because the queue could not meet their deadline.", value: Double(all.shed))
        registry.total(
            "kuroneko_upstream_expired_waiters_total", labels,
            help: "Lookups answered 504 because their deadline passed first.", value: Double(all.expired))
        registry.total(
            "kuroneko_upstream_cancelled_numbers_total", labels,
            help: "Numbers dropped unsent, or requests called off, because nobody waited for them any more.",
            value: Double(all.cancelledNumbers))
        registry.total(
            "kuroneko_upstream_starts_total", labels,
            help: "Requests started (the politeness budget granted a start).", value: Double(all.started))
        if let gap = all.shortestStartGap {
            registry.level(
                "kuroneko_upstream_shortest_start_gap_seconds", labels,
                help: "The shortest time between two request starts since the server started.", value: gap / .seconds(1))
        }
        registry.total(
            "kuroneko_upstream_circuit_rejections_total", labels,
            help: "Lookups answered 503 at once because the circuit was open.", value: Double(all.rejectedWhileOpen))
    }
}
