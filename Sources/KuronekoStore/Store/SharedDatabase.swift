import Foundation
import Kuroneko
import Synchronization

/// What servers on one database share through it: the politeness budget, and the stream of shipments each
/// of them records. A capability of the engine (PostgreSQL has it; SQLite, one server's own file, does not),
/// asked of the store rather than found by a downcast.
public protocol SharedDatabase: Sendable {
    /// The budget every server (and every command) on the database spends together on one carrier.
    /// - Parameter failed: told of a database error, once when the budget's database calls start failing (not
    ///   again until they have worked in between).
    func upstreamBudget(
        carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock,
        failed: @escaping @Sendable (any Error) -> Void
    ) throws -> any UpstreamBudget

    /// Calls `handler` with each shipment another server records (the number, and its latest shipment, or
    /// why it could not be read when it was too large to come along), on a thread of the stream's own, until
    /// the stream is stopped.
    /// `failed` is told once when listening fails (not again until it has worked in between); `listening` each
    /// time listening starts (at first, and after a lost connection is made again).
    func shipmentStream(
        _ handler: @escaping @Sendable (TrackingNumber, Result<LatestShipment, any Error>) -> Void,
        failed: @escaping @Sendable (any Error) -> Void, listening: @escaping @Sendable () -> Void
    ) -> any ShipmentStream
}

extension SharedDatabase {
    /// A budget whose database errors are not reported (they still hold every request back while they last).
    public func upstreamBudget(carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock)
        throws -> any UpstreamBudget
    {
        try upstreamBudget(
            carrier: carrier, maxConcurrent: maxConcurrent, minimumInterval: minimumInterval, clock: clock, failed: { _ in })
    }
}

/// Reports the first failure of a run of them: a database out of reach for a minute is one report, not one
/// per retry.
public final class FailureRun: Sendable {
    private let failing = Atomic(false)
    private let report: @Sendable (any Error) -> Void

    public init(_ report: @escaping @Sendable (any Error) -> Void) {
        self.report = report
    }

    public func failed(_ error: any Error) {
        if !failing.exchange(true, ordering: .acquiringAndReleasing) { report(error) }
    }

    public func worked() {
        failing.store(false, ordering: .releasing)
    }

    /// The call's result, or `nil` with its error reported (once for a run of failures).
    public func reporting<T>(_ call: () throws -> T) -> T? {
        do {
            let result = try call()
            worked()
            return result
        } catch {
            failed(error)
            return nil
        }
    }
}

/// A running ``SharedDatabase/shipmentStream(_:)``.
public protocol ShipmentStream: Sendable {
    /// Stops listening; returns once no handler call is in progress or will come.
    func stop()
}
