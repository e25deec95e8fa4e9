import CoreMetrics
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

    /// The handles made so far: a request finds its counter and its route's histogram here, so the registry
    /// is asked once per method, route and status.
    private struct Handles {
        var requests: [RequestKey: CoreMetrics.Counter] = [:]
        var durations: [String: CoreMetrics.Recorder] = [:]
    }

    static let bounds = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10]
    private let registry: MetricsRegistry
    private let handles = Mutex(Handles())
    /// Kept in a plain atomic and set in the registry at each scrape: a gauge moved twice per request (a
    /// compare-and-swap on a shared double each time) cost more on the cache-hit path than the count is worth.
    private let inFlight = Atomic<Int>(0)

    public init(registry: MetricsRegistry) {
        self.registry = registry
        refresh()
    }

    /// Sets what is read when scraped (the requests in flight).
    public func refresh() {
        registry.level(
            "kuroneko_http_requests_in_flight", help: "Requests being answered.",
            value: Double(inFlight.load(ordering: .relaxed)))
    }

    func started() {
        inFlight.add(1, ordering: .relaxed)
    }

    func finished(method: String, route: String, status: Int, seconds: Double) {
        let key = RequestKey(method: HTTPMethod.label(method), route: route, status: status)
        inFlight.subtract(1, ordering: .relaxed)
        let (counter, duration) = handles.withLock { handles in
            let counter =
                handles.requests[key]
                ?? registry.counter(
                    "kuroneko_http_requests_total",
                    [("method", key.method), ("route", key.route), ("status", String(key.status))],
                    help: "HTTP requests answered, by method, route and status.")
            handles.requests[key] = counter
            let duration =
                handles.durations[key.route]
                ?? registry.histogram(
                    "kuroneko_http_request_duration_seconds", [("route", key.route)], buckets: Self.bounds,
                    help: "Time to answer a request, by route.")
            handles.durations[key.route] = duration
            return (counter, duration)
        }
        counter.increment()
        duration.record(seconds)
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
