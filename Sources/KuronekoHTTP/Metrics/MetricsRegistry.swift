import CoreMetrics
import Prometheus
import Synchronization

/// The server's metrics: swift-metrics handles (`Counter`, `Meter`, `Recorder`) backed by one swift-prometheus
/// registry, which writes `/metrics` in Prometheus's text format. One per server (the tests run many in one
/// process), so nothing here touches the process-wide `MetricsSystem`.
///
/// Counted where it happens: requests, cache lookups, upstream attempts (``counter(_:_:help:)``,
/// ``histogram(_:_:buckets:help:)``). Read when scraped: what other parts keep (a scheduler's queue, the
/// outbox's size, the process's memory) is set just before the text is written, a level as a gauge
/// (``level(_:_:help:value:)``) and a running total as a counter raised by what it grew
/// (``total(_:_:help:value:)``).
public final class MetricsRegistry: Sendable {
    public let prometheus = PrometheusCollectorRegistry()
    /// What each scrape-time counter shows, by name and labels: the next scrape raises it by the difference.
    private let totals = Mutex<[String: Double]>([:])

    public init() {}

    /// A counter counted where it happens.
    public func counter(_ name: String, _ labels: [(String, String)] = [], help: String) -> CoreMetrics.Counter {
        CoreMetrics.Counter(
            label: name, dimensions: labels, handler: prometheus.makeCounter(descriptor: Self.descriptor(name, help), labels: labels))
    }

    /// A gauge moved where it happens (`increment`, `decrement`, `set`).
    public func meter(_ name: String, _ labels: [(String, String)] = [], help: String) -> CoreMetrics.Meter {
        CoreMetrics.Meter(
            label: name, dimensions: labels, handler: prometheus.makeGauge(descriptor: Self.descriptor(name, help), labels: labels))
    }

    /// A histogram with these bucket bounds (`le`), recorded where it happens.
    public func histogram(_ name: String, _ labels: [(String, String)] = [], buckets: [Double], help: String)
        -> CoreMetrics.Recorder
    {
        CoreMetrics.Recorder(
            label: name, dimensions: labels, aggregate: true,
            handler: prometheus.makeValueHistogram(descriptor: Self.descriptor(name, help), labels: labels, buckets: buckets))
    }

    /// Sets a gauge to what it is now (at a scrape).
    public func level(_ name: String, _ labels: [(String, String)] = [], help: String, value: Double) {
        prometheus.makeGauge(descriptor: Self.descriptor(name, help), labels: labels).set(to: value)
    }

    /// Leaves a gauge out of the text until it is set again (a value that could not be read, rather than a
    /// false one).
    public func forget(_ name: String, _ labels: [(String, String)] = [], help: String) {
        prometheus.unregisterGauge(prometheus.makeGauge(descriptor: Self.descriptor(name, help), labels: labels))
    }

    /// Sets a counter to a running total kept elsewhere (at a scrape): raised by what the total grew since.
    public func total(_ name: String, _ labels: [(String, String)] = [], help: String, value: Double) {
        // A total that is not a finite number (a clock read gone wrong) is left as it was: converting it would trap.
        guard value.isFinite else { return }
        let key = ([name] + labels.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{1F}")
        let grown = totals.withLock { shown -> Double in
            let before = shown[key]
            shown[key] = max(value, before ?? 0)
            return max(0, value - (before ?? 0))
        }
        let counter = prometheus.makeCounter(descriptor: Self.descriptor(name, help), labels: labels)
        if grown == grown.rounded() && grown < 9e15 {
            counter.increment(by: Int64(grown))
        } else {
            counter.increment(by: grown)
        }
    }

    /// A family's whole name (its unit already in it, as `_total` or `_seconds`) and its `# HELP`.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The Prometheus text exposition of everything registered.
    public func render() -> [UInt8] {
        prometheus.emitToBuffer()
    }
}
