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
    ///   - transport: default ``URLSessionTransport``.
    ///   - clock: default ``SystemClock``; drives pacing, backoff, deadlines and the reference time for dates.
    ///   - budget: default a ``LocalUpstreamBudget`` with the configuration's limits.
    ///   - randomFraction: the source of backoff jitter, a number in [0, 1).
    ///   - observer: told of every POST attempt as it ends.
    public init(
        configuration: Configuration = Configuration(),
        transport: any HTTPTransport = URLSessionTransport(),
        clock: any TrackingClock = SystemClock(),
        budget: (any UpstreamBudget)? = nil,
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observer: (@Sendable (UpstreamPostReport) -> Void)? = nil
    ) {
        scheduler = UpstreamScheduler(
            configuration: configuration, transport: transport, clock: clock, budget: budget,
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

    /// Looks up many numbers, ten per POST, each distinct number once. They are queued together and leave
    /// at once, without the batch window.
    /// - Returns: one shipment per number given, in the same order.
    /// - Throws: ``TrackingError`` for the first number (in the caller's order) that failed, the other
    ///   lookups then called off; or `CancellationError` when the task is cancelled.
    public func track(_ numbers: [TrackingNumber], priority: UpstreamPriority = .interactive) async throws
        -> [Shipment]
    {
        let plan = BatchPlan(numbers)
        let distinct = Array(plan.batches.joined())
        let tickets = await scheduler.want(distinct, priority: priority, timeout: configuration.lookupDeadline)
        var answers: [Shipment] = []
        answers.reserveCapacity(distinct.count)
        do {
            for ticket in tickets {
                answers.append(try await scheduler.result(of: ticket))
            }
        } catch {
            for ticket in tickets.dropFirst(answers.count) { await scheduler.abandon(ticket) }
            throw error
        }
        return plan.assemble([answers])
    }
}
