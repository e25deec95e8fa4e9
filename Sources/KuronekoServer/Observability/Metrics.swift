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
        /// Refused pages by the parser's code (a fixed set of stable codes).
        var refused: [String: Int] = [:]
    }

    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let stale = Atomic<Int>(0)
    private let upstream = Mutex([Carrier: Upstream]())
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

    /// Counts one of Yamato's request attempts as it ended; give this to Yamato's client as its observer.
    public func recordUpstream(_ report: UpstreamPostReport) {
        record(report, carrier: .yamato)
    }

    /// The observer for one carrier's client: its attempts counted under its `carrier` label.
    public func upstreamObserver(for carrier: Carrier) -> @Sendable (UpstreamPostReport) -> Void {
        { [self] report in record(report, carrier: carrier) }
    }

    func record(_ report: UpstreamPostReport, carrier: Carrier) {
        upstream.withLock { all in
            var upstream = all[carrier] ?? Upstream()
            upstream.requests += report.requests
            if report.failed { upstream.failures += 1 }
            upstream.duration.observe(report.seconds)
            upstream.batchSize.observe(Double(report.numbers))
            if let page = report.refusedPage { upstream.refused[page.error.code.rawValue, default: 0] += 1 }
            all[carrier] = upstream
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    /// - Parameter upstream: the scheduler's levels and counters, rendered beside the server's own.
    /// - Parameter statistics: each carrier's scheduler levels and counters, labelled `carrier`.
    public func render(upstream statistics: [Carrier: UpstreamStatistics] = [:], cacheEntries: Int? = nil) -> [String] {
        let all = self.upstream.withLock { $0 }
        let carriers = Carrier.allCases.filter { all[$0] != nil || statistics[$0] != nil }
        do {
            var lines: [String] = []
            lines.append("# HELP kuroneko_cache_lookups_total Shipment cache lookups, by result.")
            lines.append("# TYPE kuroneko_cache_lookups_total counter")
            for result in CacheResult.allCases.sorted(by: { $0.label < $1.label }) {
                let count = count(of: result)
                lines.append("kuroneko_cache_lookups_total{result=\"\(result.label)\"} \(count)")
            }
            func family(_ name: String, _ type: String, _ help: String, _ samples: (Carrier, Upstream) -> [String]) {
                lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"]
                for carrier in carriers { lines += samples(carrier, all[carrier] ?? Upstream()) }
            }
            family("kuroneko_upstream_requests_total", "counter", "Requests sent to the carriers' tracking sites.") {
                ["kuroneko_upstream_requests_total{carrier=\"\($0)\"} \($1.requests)"]
            }
            family("kuroneko_upstream_failures_total", "counter", "Requests that failed (each attempt counts).") {
                ["kuroneko_upstream_failures_total{carrier=\"\($0)\"} \($1.failures)"]
            }
            family(
                "kuroneko_upstream_refused_pages_total", "counter",
                "Pages the parser refused, by carrier and reason (page_not_understood's codes, truncated, blocked …)."
            ) { carrier, upstream in
                upstream.refused.sorted { $0.key < $1.key }.map {
                    "kuroneko_upstream_refused_pages_total{carrier=\"\(carrier)\",reason=\"\($0.key)\"} \($0.value)"
                }
            }
            family("kuroneko_upstream_request_duration_seconds", "histogram", "Time for one request attempt.") {
                $1.duration.samples(name: "kuroneko_upstream_request_duration_seconds", labels: "carrier=\"\($0)\"")
            }
            family("kuroneko_upstream_batch_size", "histogram", "Tracking numbers per upstream request.") {
                $1.batchSize.samples(name: "kuroneko_upstream_batch_size", labels: "carrier=\"\($0)\"")
            }
            lines += Self.render(statistics)
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

    private static func render(_ all: [Carrier: UpstreamStatistics]) -> [String] {
        let carriers = Carrier.allCases.filter { all[$0] != nil }
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ value: (UpstreamStatistics) -> String?) {
            let samples = carriers.compactMap { carrier in
                all[carrier].flatMap(value).map { "\(name){carrier=\"\(carrier)\"} \($0)" }
            }
            guard !samples.isEmpty else { return }
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"] + samples
        }
        lines += [
            "# HELP kuroneko_upstream_queue_length Numbers waiting for a request, by carrier and priority.",
            "# TYPE kuroneko_upstream_queue_length gauge",
        ]
        for carrier in carriers {
            for priority in UpstreamPriority.allCases.reversed() {
                lines.append(
                    "kuroneko_upstream_queue_length{carrier=\"\(carrier)\",priority=\"\(priority)\"} "
                        + "\(all[carrier]?.queued[priority] ?? 0)")
            }
        }
        metric(
            "kuroneko_upstream_estimated_wait_seconds", "gauge",
            "What a new interactive lookup would wait for its answer now."
        ) { "\($0.estimatedWait / .seconds(1))" }
        metric("kuroneko_upstream_in_flight", "gauge", "Requests under way.") { "\($0.inFlight)" }
        metric("kuroneko_upstream_circuit_state", "gauge", "The circuit to the carrier: 0 closed, 1 half-open, 2 open.")
        {
            "\($0.circuit.gaugeValue)"
        }
        metric(
            "kuroneko_upstream_shed_total", "counter",
            "Lookups answered 503 at once because the queue could not meet their deadline."
        ) { "\($0.shed)" }
        metric(
            "kuroneko_upstream_expired_waiters_total", "counter",
            "Lookups answered 504 because their deadline passed first."
        ) { "\($0.expired)" }
        metric(
            "kuroneko_upstream_cancelled_numbers_total", "counter",
            "Numbers dropped unsent, or requests called off, because nobody waited for them any more."
        ) {
            "\($0.cancelledNumbers)"
        }
        metric(
            "kuroneko_upstream_starts_total", "counter", "Requests started (the politeness budget granted a start)."
        ) {
            "\($0.started)"
        }
        metric(
            "kuroneko_upstream_shortest_start_gap_seconds", "gauge",
            "The shortest time between two request starts since the server started."
        ) {
            $0.shortestStartGap.map { "\($0 / .seconds(1))" }
        }
        metric(
            "kuroneko_upstream_circuit_rejections_total", "counter",
            "Lookups answered 503 at once because the circuit was open."
        ) { "\($0.rejectedWhileOpen)" }
        return lines
    }
}
