import Foundation

/// Looks up Yamato tracking numbers through one ``UpstreamScheduler``: batched ten to a POST, politely
/// paced, retried where a retry may help, and parsed into shipments.
///
/// Copies of a client share its scheduler, and with it the politeness budget: share one client between
/// every caller that should count together.
public struct TrackingClient: Sendable {
    public var configuration: TrackingClient.Configuration { scheduler.configuration }
    /// Where every lookup of this client goes; its ``UpstreamScheduler/statistics`` tell what it is doing.
    public let scheduler: UpstreamScheduler

    /// - Parameters:
    ///   - transport: default ``CurlTransport`` (trusting the configuration's `caFile`).
    ///   - clock: default ``SystemClock``; drives pacing, backoff, deadlines and the reference time for dates.
    ///   - budget: default a ``LocalUpstreamBudget`` with the configuration's limits.
    ///   - randomFraction: the source of backoff jitter, a number in [0, 1).
    ///   - observer: told of every POST attempt as it ends.
    public init(
        configuration: Configuration = Configuration(),
        transport: (any HTTPTransport)? = nil,
        clock: any TrackingClock = SystemClock(),
        budget: (any UpstreamBudget)? = nil,
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observer: (@Sendable (UpstreamPostReport) -> Void)? = nil
    ) {
        scheduler = UpstreamScheduler(
            configuration: configuration, transport: transport ?? CurlTransport(caFile: configuration.caFile),
            clock: clock, budget: budget,
            randomFraction: randomFraction, observer: observer)
    }

    /// Looks up one number.
    /// - Parameters:
    ///   - priority: default interactive.
    ///   - deadline: how long to wait, queue included; default the configuration's `lookupDeadline`.
    /// - Throws: ``TrackingError``, or `CancellationError` when the task is cancelled.
    public func track(
        _ number: TrackingNumber, priority: UpstreamPriority = .interactive, deadline: Duration? = nil
    ) async throws -> Shipment {
        try await scheduler.shipment(
            for: number, priority: priority, timeout: deadline ?? configuration.lookupDeadline)
    }

    /// Looks up many numbers, all or nothing: ``answers(for:priority:)`` collected in the caller's order.
    /// - Returns: one shipment per number given, in the same order.
    /// - Throws: the ``TrackingError`` of the first failure to arrive, the other lookups then called off; or
    ///   `CancellationError` when the task is cancelled.
    public func track(_ numbers: [TrackingNumber], priority: UpstreamPriority = .interactive) async throws
        -> [Shipment]
    {
        var shipments = [Shipment?](repeating: nil, count: numbers.count)
        var answered = 0
        for await answer in answers(for: numbers, priority: priority) {
            shipments[answer.index] = try answer.result.get()
            answered += 1
        }
        try Task.checkCancellation()
        guard answered == numbers.count else { throw CancellationError() }
        return shipments.compactMap { $0 }
    }
}
