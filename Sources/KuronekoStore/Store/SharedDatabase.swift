import Foundation
import Kuroneko

/// What servers on one database share through it: the politeness budget, and the stream of shipments each
/// of them records. A capability of the engine (PostgreSQL has it; SQLite, one server's own file, does not),
/// asked of the store rather than found by a downcast.
public protocol SharedDatabase: Sendable {
    /// The budget every server (and every command) on the database spends together on one carrier.
    func upstreamBudget(carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock) throws
        -> any UpstreamBudget

    /// Calls `handler` with each shipment another server records (the number, and its latest shipment, or
    /// why it could not be read when it was too large to come along), on a thread of the stream's own, until
    /// the stream is stopped.
    func shipmentStream(_ handler: @escaping @Sendable (TrackingNumber, Result<LatestShipment, any Error>) -> Void)
        -> any ShipmentStream
}

/// A running ``SharedDatabase/shipmentStream(_:)``.
public protocol ShipmentStream: Sendable {
    /// Stops listening; returns once no handler call is in progress or will come.
    func stop()
}
