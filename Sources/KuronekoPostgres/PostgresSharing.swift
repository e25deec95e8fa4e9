import Foundation
import Kuroneko
import KuronekoStore

/// What servers on one PostgreSQL database share: ``PostgresUpstreamBudget`` and the shipments announced on
/// ``PostgresDatabase/shipmentsChannel``.
struct PostgresSharing: SharedDatabase {
    let database: PostgresDatabase

    func upstreamBudget(
        carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock,
        failed: @escaping @Sendable (any Error) -> Void
    ) throws -> any UpstreamBudget {
        try PostgresUpstreamBudget(
            database: database, carrier: carrier, maxConcurrent: maxConcurrent, minimumInterval: minimumInterval,
            clock: clock, failures: FailureRun(failed))
    }

    func shipmentStream(
        _ handler: @escaping @Sendable (TrackingNumber, Result<LatestShipment, any Error>) -> Void,
        failed: @escaping @Sendable (any Error) -> Void, listening: @escaping @Sendable () -> Void
    ) -> any ShipmentStream {
        let database = self.database
        return PostgresListener(
            url: database.url, channel: PostgresDatabase.shipmentsChannel, failures: FailureRun(failed),
            listening: listening
        ) { payload in
            guard let (digits, carried) = PostgresDatabase.announcement(payload),
                let number = try? TrackingNumber(parsing: digits)
            else { return }
            if let carried { return handler(number, .success(carried)) }
            // Too large to come along: read on the listener's own thread.
            do {
                let read = try database.readNow { connection in
                    try SQLWatchStore<PostgresDatabase>.latestShipment(of: number, on: connection)
                }
                if let read { handler(number, .success(read)) }
            } catch {
                handler(number, .failure(error))
            }
        }
    }
}

extension PostgresListener: ShipmentStream {}

extension PostgresDatabase {
    public func sharing<Store: WatchStore>(for store: Store) -> (any SharedDatabase)? {
        PostgresSharing(database: self)
    }
}
