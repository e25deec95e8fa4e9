import Foundation
import Logging
import Kuroneko

/// The watch store: every SQL statement the watch list uses is in this file and its extensions, one per
/// aggregate (watches, recording and claims, the outbox, keys), written once for both engines
/// (``SQLiteWatchStore``, ``PostgresWatchStore``); the words that differ come from ``SQLDatabase``.
public final class SQLWatchStore<Database: SQLDatabase>: WatchStore {
    public let database: Database
    public let maxWatchesPerOwner: Int
    /// How long a number the carrier does not know yet waits before it is a problem (`--unregistered-grace`).
    public let unregisteredGrace: TimeInterval

    /// - Parameter maxWatchesPerOwner: the most watches one owner may have (`--max-watches-per-owner`).
    public init(
        database: Database, maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner,
        unregisteredGrace: TimeInterval = WatchLimits.unregisteredGrace
    ) {
        self.unregisteredGrace = unregisteredGrace
        self.database = database
        self.maxWatchesPerOwner = max(1, maxWatchesPerOwner)
    }

    public var shared: (any SharedDatabase)? { database.sharing(for: self) }

    public func backup(to path: String) async throws -> [String] { try database.backup(to: path) }

    public var isRemote: Bool { Database.isRemote }

    public func summary() async throws -> StoreSummary {
        try await database.read { connection in
            func count(_ sql: String) throws -> Int { try Self.scalar(connection.run(sql, [])) }
            return StoreSummary(
                engine: Database.engineName, schemaVersion: try count(Database.schemaVersionQuery),
                activeWatches: try count("SELECT COUNT(*) FROM watches WHERE active = 1"),
                finishedWatches: try count("SELECT COUNT(*) FROM watches WHERE active = 0"),
                shipments: try count("SELECT COUNT(*) FROM shipments"),
                events: try count("SELECT COUNT(*) FROM events"),
                changes: try count("SELECT COUNT(*) FROM changes"),
                pendingDeliveries: try count("SELECT COUNT(*) FROM outbox WHERE state = 'pending'"),
                activeKeys: try count("SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL"))
        }
    }

    public func pendingDeliveryCount() async throws -> Int {
        let rows = try await database.read { connection in
            try connection.run("SELECT COUNT(*) FROM outbox WHERE state = 'pending'")
        }
        return try Self.scalar(rows)
    }

    public func latestShipment(of number: TrackingNumber) async throws -> LatestShipment? {
        try await database.read { connection in try Self.latestShipment(of: number, on: connection) }
    }

    /// The latest shipment of a number, read on a connection lent already (a listener's own thread).
    public static func latestShipment(of number: TrackingNumber, on connection: some SQLConnection) throws
        -> LatestShipment?
    {
        let rows = try connection.run("SELECT json, fetched_at FROM shipments WHERE number = ?", [.text(number.digits)])
        guard let row = rows.first else { return nil }
        return LatestShipment(fetchedAt: try row.requiredDate("fetched_at"), json: try row.requiredData("json"))
    }

    public func checkReachable() async throws {
        _ = try await database.read { connection in try connection.run("SELECT 1").count }
    }

    // MARK: Rows

    /// The columns a watch is read with, joined with its latest shipment and its subscription.
    static var watchColumns: String {
        """
        SELECT w.id, w.owner, w.number, w.carrier, w.label, w.created_at, w.active, w.checked_at, w.next_check_at,
               w.family, w.stalled_at, w.overdue_at, w.page_refused_at, w.source, w.record, s.json, s.fetched_at, sub.url, sub.ended_at, sub.ended_reason
        FROM watches w
        LEFT JOIN shipments s ON s.number = w.number
        LEFT JOIN subscriptions sub ON sub.watch_id = w.id
        """
    }

    /// A row of ``watchColumns``.
    static func watch(from row: SQLRow) throws -> Watch {
        let digits = try row.requiredText("number")
        guard let number = try? TrackingNumber(parsing: digits) else {
            throw StoreError(
                code: 0, message: "the watch list holds \"\(digits.prefix(20))\", which is not a tracking number")
        }
        var latest: LatestShipment?
        if let json = try row.data("json"), let fetchedAt = try row.date("fetched_at") {
            latest = LatestShipment(fetchedAt: fetchedAt, json: json)
        }
        var ended: WebhookEnd?
        if let at = try row.date("ended_at") { ended = WebhookEnd(at: at, reason: try row.text("ended_reason") ?? "") }
        var carrier: Carrier?
        if let name = try row.text("carrier") {
            guard let known = try? Carrier(named: name) else {
                throw StoreError(
                    code: 0, message: "the watch list holds carrier \"\(name.prefix(20))\", which is not a carrier")
            }
            carrier = known
        }
        var watch = Watch(
            id: Int64(try row.requiredInt("id")), owner: WatchOwner(id: try row.requiredText("owner")), number: number,
            carrier: carrier, label: try row.text("label"), createdAt: try row.requiredDate("created_at"),
            active: try row.requiredInt("active") == 1, checkedAt: try row.date("checked_at"),
            nextCheckAt: try row.requiredDate("next_check_at"), latest: latest, webhookURL: try row.text("url"),
            webhookEnded: ended)
        watch.family = try row.text("family").flatMap(WatchFamily.init(rawValue:))
        watch.stalledAt = try row.date("stalled_at")
        watch.overdueAt = try row.date("overdue_at")
        watch.pageRefusedAt = try row.date("page_refused_at")
        watch.source = try row.text("source").map { Data($0.utf8) }
        watch.recordJSON = try row.text("record").map { Data($0.utf8) }
        return watch
    }

    /// The one integer of a one-column result (a count, a version); 0 for no row or NULL.
    static func scalar(_ rows: [SQLRow]) throws -> Int {
        guard let row = rows.first else { return 0 }
        guard row.values.count == 1 else {
            throw StoreError(
                code: 0, message: "expected one column, found \(row.columns.names.joined(separator: ", "))")
        }
        switch row.values[0] {
        case .null: return 0
        case .integer(let value): return Int(value)
        case let other: throw StoreError(code: 0, message: "expected an integer, found \(other.kind)")
        }
    }

    /// The `status` object of a served shipment's JSON.
    static func statusJSON(ofServed json: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let status = object["status"]
        else { return nil }
        return try? JSONSerialization.data(withJSONObject: status, options: [.sortedKeys])
    }
}

/// The watch store on SQLite: one file, the default.
public typealias SQLiteWatchStore = SQLWatchStore<SQLiteDatabase>

extension SQLWatchStore where Database == SQLiteDatabase {
    /// Opens (creating and migrating) the database at `path`; `log` is told what each migration does before it
    /// runs. A file from a newer Kuroneko is refused untouched (``NewerSchemaError``).
    public convenience init(
        path: String, log: Logger? = nil,
        maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner,
        unregisteredGrace: TimeInterval = WatchLimits.unregisteredGrace
    ) throws {
        self.init(
            database: try SQLiteDatabase(path: path, migrations: Schema.migrations, log: log),
            maxWatchesPerOwner: maxWatchesPerOwner, unregisteredGrace: unregisteredGrace)
    }

    /// The default file: `$XDG_DATA_HOME/kuroneko/kuroneko.sqlite`, else `~/.local/share/kuroneko/…`.
    public static func defaultPath(environment: [String: String]) -> String {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/kuroneko/kuroneko.sqlite"
    }
}
