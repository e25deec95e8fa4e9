import Foundation
import Kuroneko
import KuronekoHTTP
import Synchronization

/// The server's counters and histograms, rendered in the Prometheus text format for `GET /metrics`. Cache
/// lookups, counted on every request, are atomics; the upstream's figures, once per POST, are in a `Mutex`.
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

    private struct Upstream {
        var requests = 0
        var failures = 0
        var duration = Histogram(bounds: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
        var batchSize = Histogram(bounds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }

    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let stale = Atomic<Int>(0)
    private let upstream = Mutex(Upstream())
    private let startedAt = Date()

    public init() {}

    func recordCacheLookup(_ result: CacheResult) {
        switch result {
        case .hit: hits.add(1, ordering: .relaxed)
        case .miss: misses.add(1, ordering: .relaxed)
        case .stale: stale.add(1, ordering: .relaxed)
        }
    }

    private func count(of result: CacheResult) -> Int {
        switch result {
        case .hit: hits.load(ordering: .relaxed)
        case .miss: misses.load(ordering: .relaxed)
        case .stale: stale.load(ordering: .relaxed)
        }
    }

    /// Counts one POST attempt as it ended; give this to the client as its observer.
    public func recordUpstream(_ report: UpstreamPostReport) {
        upstream.withLock { upstream in
            upstream.requests += 1
            if report.failed { upstream.failures += 1 }
            upstream.duration.observe(report.seconds)
            upstream.batchSize.observe(Double(report.numbers))
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    /// - Parameter upstream: the scheduler's levels and counters, rendered beside the server's own.
    public func render(upstream statistics: UpstreamStatistics? = nil, cacheEntries: Int? = nil) -> [String] {
        let upstream = self.upstream.withLock { $0 }
        do {
            var lines: [String] = []
            lines.append("# HELP kuroneko_cache_lookups_total Shipment cache lookups, by result.")
            lines.append("# TYPE kuroneko_cache_lookups_total counter")
            for result in CacheResult.allCases.sorted(by: { $0.label < $1.label }) {
                let count = count(of: result)
                lines.append("kuroneko_cache_lookups_total{result=\"\(result.label)\"} \(count)")
            }
            lines.append("# HELP kuroneko_upstream_requests_total POSTs sent to the tracking page.")
            lines.append("# TYPE kuroneko_upstream_requests_total counter")
            lines.append("kuroneko_upstream_requests_total \(upstream.requests)")
            lines.append("# HELP kuroneko_upstream_failures_total POSTs that failed (each attempt counts).")
            lines.append("# TYPE kuroneko_upstream_failures_total counter")
            lines.append("kuroneko_upstream_failures_total \(upstream.failures)")
            lines += upstream.duration.render(
                name: "kuroneko_upstream_request_duration_seconds",
                help: "Time for one POST attempt.")
            lines += upstream.batchSize.render(
                name: "kuroneko_upstream_batch_size", help: "Tracking numbers per upstream POST.")
            if let statistics { lines += Self.render(statistics) }
            if let cacheEntries {
                lines += PrometheusText.single(
                    "kuroneko_cache_entries", type: "gauge", help: "Shipments in the cache.", value: "\(cacheEntries)")
            }
            lines += ["# HELP kuroneko_build_info The running version.", "# TYPE kuroneko_build_info gauge"]
            lines.append("kuroneko_build_info{version=\"\(PrometheusText.escape(KuronekoVersion.version))\"} 1")
            lines += ProcessMetrics.render(startedAt: startedAt)
            return lines
        }
    }

    private static func render(_ upstream: UpstreamStatistics) -> [String] {
        var lines = [
            "# HELP kuroneko_upstream_queue_length Numbers waiting for a POST, by priority.",
            "# TYPE kuroneko_upstream_queue_length gauge",
        ]
        for priority in UpstreamPriority.allCases.reversed() {
            lines.append("kuroneko_upstream_queue_length{priority=\"\(priority)\"} \(upstream.queued[priority] ?? 0)")
        }
        func metric(_ name: String, _ type: String, _ help: String, _ value: String) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
        }
        metric(
            "kuroneko_upstream_estimated_wait_seconds", "gauge",
            "What a new interactive lookup would wait for its answer now.",
            "\(upstream.estimatedWait / .seconds(1))")
        metric("kuroneko_upstream_in_flight", "gauge", "POSTs under way.", "\(upstream.inFlight)")
        metric(
            "kuroneko_upstream_circuit_state", "gauge", "The circuit to Yamato: 0 closed, 1 half-open, 2 open.",
            "\(upstream.circuit.gaugeValue)")
        metric(
            "kuroneko_upstream_shed_total", "counter",
            "Lookups answered 503 at once because the queue could not meet their deadline.", "\(upstream.shed)")
        metric(
            "kuroneko_upstream_expired_waiters_total", "counter",
            "Lookups answered 504 because their deadline passed first.", "\(upstream.expired)")
        metric(
            "kuroneko_upstream_cancelled_numbers_total", "counter",
            "Numbers dropped unsent, or POSTs called off, because nobody waited for them any more.",
            "\(upstream.cancelledNumbers)")
        metric(
            "kuroneko_upstream_starts_total", "counter", "POSTs started (the politeness budget granted a start).",
            "\(upstream.started)")
        if let gap = upstream.shortestStartGap {
            metric(
                "kuroneko_upstream_shortest_start_gap_seconds", "gauge",
                "The shortest time between two POST starts since the server started.", "\(gap / .seconds(1))")
        }
        metric(
            "kuroneko_upstream_circuit_rejections_total", "counter",
            "Lookups answered 503 at once because the circuit was open.", "\(upstream.rejectedWhileOpen)")
        return lines
    }
}
