import Foundation
import Kuroneko
import KuronekoStore

/// What servers on one PostgreSQL database share: ``PostgresUpstreamBudget`` and the shipments announced on
/// ``PostgresDatabase/shipmentsChannel``.
struct PostgresSharing: SharedDatabase {
    let database: PostgresDatabase

    func upstreamBudget(carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock)
        throws -> any UpstreamBudget
    {
        try PostgresUpstreamBudget(
            database: database, carrier: carrier, maxConcurrent: maxConcurrent, minimumInterval: minimumInterval,
            clock: clock)
    }

    func shipmentStream(
        _ handler: @escaping @Sendable (TrackingNumber, Result<LatestShipment, any Error>) -> Void
    ) -> any ShipmentStream {
        let database = self.database
        return PostgresListener(url: database.url, channel: PostgresDatabase.shipmentsChannel) { payload in
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
