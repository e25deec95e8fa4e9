import Foundation
import Kuroneko

/// The server's counters and histograms, rendered in the Prometheus text format for `GET /metrics`.
///
/// `@unchecked Sendable`: all state is guarded by `lock`.
public final class Metrics: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [RequestKey: Int] = [:]
    private var requestDuration = Histogram(bounds: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5])
    private var cacheLookups: [String: Int] = ["hit": 0, "miss": 0, "stale": 0]
    private var upstreamRequests = 0
    private var upstreamFailures = 0
    private var upstreamDuration = Histogram(bounds: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
    private var batchSize = Histogram(bounds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])

    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    public init() {}

    func recordRequest(method: String, route: String, status: Int, seconds: Double) {
        locked {
            requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            requestDuration.observe(seconds)
        }
    }

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
    public func render(upstream: UpstreamStatistics? = nil) -> String {
        locked {
            var lines: [String] = []
            lines.append("# HELP kuroneko_http_requests_total HTTP requests answered, by route and status.")
            lines.append("# TYPE kuroneko_http_requests_total counter")
            for (key, count) in requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
                lines.append(
                    "kuroneko_http_requests_total{method=\"\(key.method)\",route=\"\(key.route)\",status=\"\(key.status)\"} \(count)"
                )
            }
            lines += requestDuration.render(
                name: "kuroneko_http_request_duration_seconds", help: "Time to answer a request.")
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
            return lines.joined(separator: "\n") + "\n"
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

/// A Prometheus histogram: cumulative bucket counts, sum and count.
private struct Histogram {
    let bounds: [Double]
    private var counts: [Int]
    private var sum = 0.0
    private var total = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        for (index, bound) in bounds.enumerated() where value <= bound {
            counts[index] += 1
        }
        sum += value
        total += 1
    }

    func render(name: String, help: String) -> [String] {
        var lines = ["# HELP \(name) \(help)", "# TYPE \(name) histogram"]
        for (bound, count) in zip(bounds, counts) {
            lines.append("\(name)_bucket{le=\"\(bound.formatted(.number.grouping(.never)))\"} \(count)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(total)")
        lines.append("\(name)_sum \(sum)")
        lines.append("\(name)_count \(total)")
        return lines
    }
}
