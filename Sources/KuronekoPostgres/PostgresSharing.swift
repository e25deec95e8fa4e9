import Foundation
import Kuroneko
import KuronekoStore

/// What servers on one PostgreSQL database share: ``PostgresUpstreamBudget`` and the shipments announced on
/// ``PostgresDatabase/shipmentsChannel``.
struct PostgresSharing<Store: WatchStore>: SharedDatabase {
    let database: PostgresDatabase
    let store: Store

    func upstreamBudget(carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock)
        throws -> any UpstreamBudget
    {
        try PostgresUpstreamBudget(
            database: database, carrier: carrier, maxConcurrent: maxConcurrent, minimumInterval: minimumInterval,
            clock: clock)
    }

    func shipmentStream(_ handler: @escaping @Sendable (TrackingNumber, LatestShipment) -> Void) -> any ShipmentStream {
        let store = self.store
        return PostgresListener(url: database.url, channel: PostgresDatabase.shipmentsChannel) { payload in
            guard let (digits, carried) = PostgresDatabase.announcement(payload),
                let number = try? TrackingNumber(parsing: digits),
                let latest = carried ?? (try? store.latestShipment(of: number)) ?? nil
            else { return }
            handler(number, latest)
        }
    }
}

extension PostgresListener: ShipmentStream {}

extension PostgresDatabase {
    public func sharing<Store: WatchStore>(for store: Store) -> (any SharedDatabase)? {
        PostgresSharing(database: self, store: store)
    }
}
