import Dispatch
import Foundation
import Synchronization

/// Request counters, latency by route and requests in flight, with labels from closed sets only: the
/// method (``HTTPMethod/label(_:)``), the route pattern or `unmatched`, and the status.
public final class HTTPMetrics: Sendable {
    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int

        /// Hashes lengths, not text: the sets are small and closed, and this runs on every request;
        /// equality still compares the text.
        func hash(into hasher: inout Hasher) {
            hasher.combine(method.utf8.count)
            hasher.combine(route.utf8.count)
            hasher.combine(status)
        }
    }

    /// One histogram per method, route and status: a request updates one entry (its count is the histogram's
    /// count). The per-route histograms `/metrics` shows are these added up by route when it is scraped.
    private struct State {
        var series: [RequestKey: Histogram] = [:]
    }

    private static let bounds = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10]
    private let state = Mutex(State())
    private let inFlight = Atomic<Int>(0)

    public init() {}

    func started() {
        inFlight.add(1, ordering: .relaxed)
    }

    func finished(method: String, route: String, status: Int, seconds: Double) {
        let key = RequestKey(method: HTTPMethod.label(method), route: route, status: status)
        inFlight.subtract(1, ordering: .relaxed)
        state.withLock { state in
            state.series[key, default: Histogram(bounds: Self.bounds)].observe(seconds)
        }
    }

    /// The HTTP part of `/metrics`.
    public func render() -> [String] {
        let snapshot = state.withLock { $0 }
        var lines = [
            "# HELP kuroneko_http_requests_total HTTP requests answered, by method, route and status.",
            "# TYPE kuroneko_http_requests_total counter",
        ]
        var byRoute: [String: Histogram] = [:]
        for (key, histogram) in snapshot.series.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            lines.append(
                "kuroneko_http_requests_total{method=\"\(PrometheusText.escape(key.method))\","
                    + "route=\"\(PrometheusText.escape(key.route))\",status=\"\(key.status)\"} \(histogram.count)")
            byRoute[key.route, default: Histogram(bounds: Self.bounds)].add(histogram)
        }
        lines += [
            "# HELP kuroneko_http_request_duration_seconds Time to answer a request, by route.",
            "# TYPE kuroneko_http_request_duration_seconds histogram",
        ]
        for (route, histogram) in byRoute.sorted(by: { $0.key < $1.key }) {
            lines += histogram.samples(
                name: "kuroneko_http_request_duration_seconds", labels: "route=\"\(PrometheusText.escape(route))\"")
        }
        lines += PrometheusText.single(
            "kuroneko_http_requests_in_flight", type: "gauge", help: "Requests being answered.",
            value: "\(inFlight.load(ordering: .relaxed))")
        return lines
    }
}

/// Counts every request in ``HTTPMetrics``.
public struct MetricsMiddleware: HTTPMiddleware {
    private let metrics: HTTPMetrics

    public init(_ metrics: HTTPMetrics) {
        self.metrics = metrics
    }

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        metrics.started()
        return nil
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds &- request.receivedAt) / 1e9
        metrics.finished(
            method: request.method, route: response.route ?? "unmatched", status: response.status, seconds: seconds)
    }
}
