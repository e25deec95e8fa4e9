import Foundation
import Kuroneko
import KuronekoHTTP

/// The server's counters and histograms, rendered in the Prometheus text format for `GET /metrics`.
///
/// `@unchecked Sendable`: all state is guarded by `lock`.
public final class Metrics: @unchecked Sendable {
    private let lock = NSLock()
    private var cacheLookups: [String: Int] = ["hit": 0, "miss": 0, "stale": 0]
    private var upstreamRequests = 0
    private var upstreamFailures = 0
    private var upstreamDuration = Histogram(bounds: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
    private var batchSize = Histogram(bounds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])

    private let startedAt = Date()

    public init() {}

    /// `result` is `hit`, `miss` or `stale`.
    func recordCacheLookup(_ result: String) {
        locked { cacheLookups[result, default: 0] += 1 }
    }

    /// Counts one POST attempt as it ended; give this to the client as its observer.
    public func recordUpstream(_ report: UpstreamPostReport) {
        locked {
            upstreamRequests += 1
            if report.failed { upstreamFailures += 1 }
            upstreamDuration.observe(report.seconds)
            batchSize.observe(Double(report.numbers))
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    /// - Parameter upstream: the scheduler's levels and counters, rendered beside the server's own.
    public func render(upstream: UpstreamStatistics? = nil, cacheEntries: Int? = nil) -> [String] {
        locked {
            var lines: [String] = []
            lines.append("# HELP kuroneko_cache_lookups_total Shipment cache lookups, by result.")
            lines.append("# TYPE kuroneko_cache_lookups_total counter")
            for (result, count) in cacheLookups.sorted(by: { $0.key < $1.key }) {
                lines.append("kuroneko_cache_lookups_total{result=\"\(result)\"} \(count)")
            }
            lines.append("# HELP kuroneko_upstream_requests_total POSTs sent to the tracking page.")
            lines.append("# TYPE kuroneko_upstream_requests_total counter")
            lines.append("kuroneko_upstream_requests_total \(upstreamRequests)")
            lines.append("# HELP kuroneko_upstream_failures_total POSTs that failed (each attempt counts).")
            lines.append("# TYPE kuroneko_upstream_failures_total counter")
            lines.append("kuroneko_upstream_failures_total \(upstreamFailures)")
            lines += upstreamDuration.render(
                name: "kuroneko_upstream_request_duration_seconds",
                help: "Time for one POST attempt.")
            lines += batchSize.render(name: "kuroneko_upstream_batch_size", help: "Tracking numbers per upstream POST.")
            if let upstream { lines += Self.render(upstream) }
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

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
