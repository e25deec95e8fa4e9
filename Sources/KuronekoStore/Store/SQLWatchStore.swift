import Foundation
import Kuroneko

/// The watch store: every SQL statement the watch list uses is in this file, written once for both
/// engines (``SQLiteWatchStore``, ``PostgresWatchStore``); the words that differ come from ``SQLDatabase``.
public final class SQLWatchStore<Database: SQLDatabase>: WatchStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    // MARK: Watches

    private static var watchColumns: String {
        """
        SELECT w.id, w.owner, w.number, w.label, w.created_at, w.active, w.checked_at, w.next_check_at,
               s.json, s.fetched_at, sub.url, sub.ended_at, sub.ended_reason
        FROM watches w
        LEFT JOIN shipments s ON s.number = w.number
        LEFT JOIN subscriptions sub ON sub.watch_id = w.id
        """
    }

    public func add(
        _ number: TrackingNumber, label: String?, owner: WatchOwner, webhook: (url: String, secret: String)?,
        now: Date
    ) throws -> AddedWatch {
        // The limit is refused inside the transaction, which it rolls back, as the typed error it is.
        let outcome = try addRow(number, label: label, owner: owner, webhook: webhook, now: now)
        // Read in the same transaction as the insert: missing only when a delete of the same number won.
        guard let watch = outcome.watch else { throw WatchStoreError.removedWhileAdding(number.formatted) }
        return AddedWatch(watch: watch, created: outcome.created, webhookSecret: outcome.secret)
    }

    private func addRow(
        _ number: TrackingNumber, label: String?, owner: WatchOwner, webhook: (url: String, secret: String)?,
        now: Date
    ) throws -> (created: Bool, secret: String?, watch: Watch?) {
        try database.write { connection in
            if let lock = Database.ownerLock { try connection.run(lock, [.text(owner.id)]) }
            func row(_ id: Int64?) throws -> Watch? {
                guard let id else { return nil }
                return try connection.run(Self.watchColumns + " WHERE w.id = ?", [.integer(id)]).first.map(Self.watch(from:))
            }
            let existing = try connection.run(
                "SELECT id FROM watches WHERE owner = ? AND number = ?", [.text(owner.id), .text(number.digits)])
            var watchID = try existing.first.map { Int64(try $0.requiredInt("id")) }
            var created = watchID == nil
            if watchID == nil {
                let count = try connection.run("SELECT COUNT(*) AS n FROM watches WHERE owner = ?", [.text(owner.id)])
                guard try (count.first?.requiredInt("n") ?? 0) < WatchLimits.watchesPerOwner else {
                    throw WatchStoreError.limitReached(WatchLimits.watchesPerOwner)
                }
                // A shipment already known for the number is the new watch's baseline.
                let known = try connection.run(
                    "SELECT status_label, json FROM shipments WHERE number = ?", [.text(number.digits)])
                let baselineLabel = try known.first?.text("status_label")
                let baselineJSON = try known.first?.data("json").flatMap(Self.statusJSON(ofServed:))
                // Another server may add the same watch at the same moment: the unique key decides.
                let inserted = try connection.run(
                    """
                    INSERT INTO watches (owner, number, label, created_at, active, status_label, status_json, next_check_at)
                    VALUES (?, ?, ?, ?, 1, ?, ?, ?)
                    ON CONFLICT (owner, number) DO NOTHING RETURNING id
                    """,
                    [
                        .text(owner.id), .text(number.digits), label.map(SQLValue.text) ?? .null,
                        .real(now.timeIntervalSince1970), baselineLabel.map(SQLValue.text) ?? .null,
                        baselineJSON.map(SQLValue.blob) ?? .null, .real(now.timeIntervalSince1970),
                    ])
                watchID = try inserted.first.map { Int64(try $0.requiredInt("id")) }
                if watchID == nil {
                    let winner = try connection.run(
                        "SELECT id FROM watches WHERE owner = ? AND number = ?",
                        [.text(owner.id), .text(number.digits)])
                    watchID = try winner.first.map { Int64(try $0.requiredInt("id")) }
                    created = false
                }
            }
            guard let watchID, let webhook else { return (created, nil, try row(watchID)) }
            let subscribed = try connection.run(
                "SELECT id FROM subscriptions WHERE watch_id = ?", [.integer(watchID)])
            guard subscribed.isEmpty else { return (created, nil, try row(watchID)) }
            try connection.run(
                "INSERT INTO subscriptions (watch_id, url, secret, created_at) VALUES (?, ?, ?, ?)",
                [.integer(watchID), .text(webhook.url), .text(webhook.secret), .real(now.timeIntervalSince1970)])
            return (created, webhook.secret, try row(watchID))
        }
    }

    public func watch(_ number: TrackingNumber, owner: WatchOwner) throws -> Watch? {
        let rows = try database.read { connection in
            try connection.run(
                Self.watchColumns + " WHERE w.owner = ? AND w.number = ?", [.text(owner.id), .text(number.digits)])
        }
        return try rows.first.map(Self.watch(from:))
    }

    public func watches(owner: WatchOwner, filter: WatchFilter, after cursor: Int64?, limit: Int) throws -> [Watch] {
        let condition =
            switch filter {
            case .all: ""
            case .active: " AND w.active = 1"
            case .finished: " AND w.active = 0"
            }
        let rows = try database.read { connection in
            try connection.run(
                Self.watchColumns + " WHERE w.owner = ? AND w.id > ?" + condition + " ORDER BY w.id LIMIT ?",
                [.text(owner.id), .integer(cursor ?? 0), .integer(Int64(limit))])
        }
        return try rows.map(Self.watch(from:))
    }

    public func remove(_ number: TrackingNumber, owner: WatchOwner) throws -> Bool {
        try database.write { connection in
            try connection.run(
                "DELETE FROM watches WHERE owner = ? AND number = ?", [.text(owner.id), .text(number.digits)])
            let removed = connection.changes > 0
            // The number's history goes with its last watch.
            let left = try connection.run("SELECT 1 FROM watches WHERE number = ? LIMIT 1", [.text(number.digits)])
            if left.isEmpty {
                try connection.run("DELETE FROM shipments WHERE number = ?", [.text(number.digits)])
                try connection.run("DELETE FROM events WHERE number = ?", [.text(number.digits)])
            }
            return removed
        }
    }

    public func changes(of number: TrackingNumber, owner: WatchOwner) throws -> [StatusChange]? {
        guard let watch = try watch(number, owner: owner) else { return nil }
        let rows = try database.read { connection in
            try connection.run(
                "SELECT id, created_at, previous_json, shipment_json FROM changes WHERE watch_id = ? ORDER BY "
                    + Database.insertionOrder,
                [.integer(watch.id)])
        }
        return try rows.map { row in
            StatusChange(
                id: try row.requiredText("id"), watchID: watch.id, number: number,
                createdAt: try row.requiredDate("created_at"),
                // The first change of a watch has no status before it.
                previous: try row.data("previous_json") ?? Data(), shipment: try row.requiredData("shipment_json"))
        }
    }

    public func deliveries(of number: TrackingNumber, owner: WatchOwner) throws -> [DeliveryRecord]? {
        guard let watch = try watch(number, owner: owner) else { return nil }
        let rows = try database.read { connection in
            try connection.run(
                """
                SELECT o.change_id, o.state, a.at, a.status, a.error, a.duration_ms
                FROM delivery_attempts a JOIN outbox o ON o.id = a.outbox_id JOIN changes c ON c.id = o.change_id
                WHERE c.watch_id = ? ORDER BY a.id
                """, [.integer(watch.id)])
        }
        return try rows.map { row in
            DeliveryRecord(
                changeID: try row.requiredText("change_id"), state: try row.requiredText("state"),
                at: try row.requiredDate("at"), status: try row.int("status"), error: try row.text("error"),
                durationMilliseconds: try row.double("duration_ms") ?? 0)
        }
    }

    // MARK: Fresh answers and the poller

    @discardableResult
    public func record(_ shipment: Shipment, fetchedAt: Date, nextCheck: (Watch, Shipment) -> Date?) throws
        -> [StatusChange]
    {
        let number = shipment.trackingNumber
        let served = ServedShipment.encode(shipment, fetchedAt: fetchedAt)
        let status = (try? JSONEncoder.kuroneko().encode(shipment.status)) ?? Data("{}".utf8)
        let watches = try database.read { connection in
            try connection.run(Self.watchColumns + " WHERE w.number = ? AND w.active = 1", [.text(number.digits)])
        }.compactMap(Self.watch(from:))
        // Only watched numbers are kept: a lookup of anything else leaves no trace here.
        guard !watches.isEmpty else { return [] }
        let schedule = watches.map { ($0.id, nextCheck($0, shipment)) }
        return try database.write { connection in
            try connection.run(
                """
                INSERT INTO shipments (number, json, status_code, status_label, terminal, fetched_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (number) DO UPDATE SET json = excluded.json, status_code = excluded.status_code,
                    status_label = excluded.status_label, terminal = excluded.terminal, fetched_at = excluded.fetched_at
                WHERE excluded.fetched_at >= shipments.fetched_at
                """,
                [
                    .text(number.digits), .blob(served), .text(shipment.status.code.rawValue),
                    .text(shipment.status.label), .integer(shipment.status.isTerminal ? 1 : 0),
                    .real(fetchedAt.timeIntervalSince1970),
                ])
            for event in shipment.events {
                try connection.run(
                    """
                    INSERT INTO events (number, label, at, place, first_seen_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """,
                    [
                        .text(number.digits), .text(event.label), .text(event.at?.iso8601 ?? event.dateText ?? ""),
                        .text(event.place ?? ""), .real(fetchedAt.timeIntervalSince1970),
                    ])
            }
            try database.announceFetched(
                LatestShipment(fetchedAt: fetchedAt, json: served), digits: number.digits, on: connection)
            var changes: [StatusChange] = []
            for (watchID, next) in schedule {
                let current = try connection.run(
                    "SELECT status_label, status_json, checked_at FROM watches WHERE id = ? AND active = 1"
                        + Database.lockingRead,
                    [.integer(watchID)])
                // An answer older than one already recorded (two checks of a number at once, on one server or
                // two) changes nothing: the watch never steps back.
                guard let row = current.first, try (row.double("checked_at") ?? 0) <= fetchedAt.timeIntervalSince1970
                else {
                    continue
                }
                if let previousLabel = try row.text("status_label"), previousLabel != shipment.status.label {
                    let change = StatusChange(
                        id: UUID().uuidString.lowercased(), watchID: watchID, number: number, createdAt: fetchedAt,
                        previous: try row.data("status_json") ?? Data("{}".utf8), shipment: served)
                    try connection.run(
                        "INSERT INTO changes (id, watch_id, created_at, previous_json, shipment_json) VALUES (?, ?, ?, ?, ?)",
                        [
                            .text(change.id), .integer(watchID), .real(fetchedAt.timeIntervalSince1970),
                            .blob(change.previous), .blob(served),
                        ])
                    try connection.run(
                        """
                        INSERT INTO outbox (change_id, subscription_id, created_at, next_attempt_at)
                        SELECT ?, id, ?, ? FROM subscriptions WHERE watch_id = ? AND ended_at IS NULL
                        """,
                        [
                            .text(change.id), .real(fetchedAt.timeIntervalSince1970),
                            .real(fetchedAt.timeIntervalSince1970), .integer(watchID),
                        ])
                    changes.append(change)
                }
                try connection.run(
                    """
                    UPDATE watches SET status_label = ?, status_json = ?, checked_at = ?, next_check_at = ?, active = ?
                    WHERE id = ?
                    """,
                    [
                        .text(shipment.status.label), .blob(status), .real(fetchedAt.timeIntervalSince1970),
                        .real((next ?? fetchedAt).timeIntervalSince1970), .integer(next == nil ? 0 : 1),
                        .integer(watchID),
                    ])
            }
            return changes
        }
    }

    public func claimDue(now: Date, horizon: Date, limit: Int, leaseUntil: Date) throws -> [TrackingNumber] {
        try database.write { connection in
            // Along the (active, next_check_at) index, most overdue first; a number several owners watch
            // comes once (four rows a number are read, so a few shared numbers still fill the batch).
            let rows = try connection.run(
                """
                SELECT w.number, w.next_check_at FROM watches w WHERE w.active = 1 AND w.next_check_at <= ?
                ORDER BY w.next_check_at LIMIT ?
                """ + Database.skippingLocked(of: "w"),
                [.real(horizon.timeIntervalSince1970), .integer(Int64(limit * 4))])
            guard let first = try rows.first?.double("next_check_at"), first <= now.timeIntervalSince1970 else {
                return []
            }
            var seen: Set<String> = []
            let candidates = try rows.map { try $0.requiredText("number") }.filter { seen.insert($0).inserted }
                .prefix(limit)
            var claimed: [TrackingNumber] = []
            for digits in candidates {
                guard let number = try? TrackingNumber(parsing: digits) else { continue }
                guard Database.leasesClaims else {
                    claimed.append(number)
                    continue
                }
                // Another server that claimed it first has moved its watches past the horizon: on PostgreSQL
                // this statement waits for that server's transaction and then matches nothing.
                try connection.run(
                    "UPDATE watches SET next_check_at = ? WHERE number = ? AND active = 1 AND next_check_at <= ?",
                    [
                        .real(leaseUntil.timeIntervalSince1970), .text(digits), .real(horizon.timeIntervalSince1970),
                    ])
                if connection.changes > 0 { claimed.append(number) }
            }
            return claimed
        }
    }

    public func postpone(_ number: TrackingNumber, until: Date) throws {
        _ = try database.write { connection in
            try connection.run(
                "UPDATE watches SET next_check_at = ? WHERE number = ? AND active = 1",
                [.real(until.timeIntervalSince1970), .text(number.digits)])
        }
    }

    // MARK: The outbox

    public func claimDeliveries(at now: Date, limit: Int, leaseUntil: Date, excludingWatches busy: Set<Int64>)
        throws -> [PendingDelivery]
    {
        let busyClause =
            busy.isEmpty ? "" : " AND c.watch_id NOT IN (" + Array(repeating: "?", count: busy.count).joined(separator: ", ") + ")"
        let rows = try database.write { connection in
            let due = try connection.run(
                """
                SELECT o.id AS outbox_id, o.attempts, o.created_at AS queued_at, sub.url, sub.secret,
                       c.id AS change_id, c.watch_id, w.number, c.created_at AS changed_at, c.previous_json,
                       c.shipment_json
                FROM outbox o
                JOIN subscriptions sub ON sub.id = o.subscription_id
                JOIN changes c ON c.id = o.change_id
                JOIN watches w ON w.id = c.watch_id
                WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND sub.ended_at IS NULL
                  AND o.id = (SELECT MIN(id) FROM outbox p WHERE p.subscription_id = o.subscription_id AND p.state = 'pending')
                """ + busyClause + " ORDER BY o.next_attempt_at LIMIT ?" + Database.skippingLocked(of: "o"),
                [.real(now.timeIntervalSince1970)] + busy.sorted().map { .integer($0) } + [.integer(Int64(limit))])
            guard Database.leasesClaims else { return due }
            return try due.filter { row in
                try connection.run(
                    "UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND state = 'pending' AND next_attempt_at <= ?",
                    [
                        .real(leaseUntil.timeIntervalSince1970), .integer(Int64(try row.requiredInt("outbox_id"))),
                        .real(now.timeIntervalSince1970),
                    ])
                return connection.changes > 0
            }
        }
        return try rows.compactMap { row in
            // A number stored by this program always parses; one that does not is skipped, never delivered.
            guard let number = try? TrackingNumber(parsing: try row.requiredText("number")) else { return nil }
            let change = StatusChange(
                id: try row.requiredText("change_id"), watchID: Int64(try row.requiredInt("watch_id")), number: number,
                createdAt: try row.requiredDate("changed_at"), previous: try row.data("previous_json") ?? Data(),
                shipment: try row.requiredData("shipment_json"))
            return PendingDelivery(
                outboxID: Int64(try row.requiredInt("outbox_id")), change: change, url: try row.requiredText("url"),
                secret: try row.requiredText("secret"), attempts: try row.requiredInt("attempts"),
                createdAt: try row.requiredDate("queued_at"))
        }
    }

    public func recordAttempt(
        _ outboxID: Int64, at: Date, status: Int?, error: String?, durationMilliseconds: Double, delivered: Bool,
        retryAt: Date?
    ) throws {
        _ = try database.write { connection in
            try connection.run(
                "INSERT INTO delivery_attempts (outbox_id, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?)",
                [
                    .integer(outboxID), .real(at.timeIntervalSince1970), status.map { .integer(Int64($0)) } ?? .null,
                    error.map(SQLValue.text) ?? .null, .real(durationMilliseconds),
                ])
            let state = delivered ? "delivered" : retryAt == nil ? "failed" : "pending"
            try connection.run(
                """
                UPDATE outbox SET attempts = attempts + 1, state = ?, next_attempt_at = ?, finished_at = ?
                WHERE id = ?
                """,
                [
                    .text(state), .real((retryAt ?? at).timeIntervalSince1970),
                    state == "pending" ? .null : .real(at.timeIntervalSince1970), .integer(outboxID),
                ])
        }
    }

    public func endSubscription(ofDelivery outboxID: Int64, at: Date, reason: String) throws {
        _ = try database.write { connection in
            try connection.run(
                """
                UPDATE subscriptions SET ended_at = ?, ended_reason = ?
                WHERE id = (SELECT subscription_id FROM outbox WHERE id = ?) AND ended_at IS NULL
                """, [.real(at.timeIntervalSince1970), .text(reason), .integer(outboxID)])
            try connection.run(
                """
                UPDATE outbox SET state = 'failed', finished_at = ?
                WHERE state = 'pending' AND subscription_id = (SELECT subscription_id FROM outbox WHERE id = ?)
                """, [.real(at.timeIntervalSince1970), .integer(outboxID)])
        }
    }

    public var shared: (any SharedDatabase)? { database.sharing(for: self) }

    public func summary() throws -> StoreSummary {
        try database.read { connection in
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

    public func pendingDeliveryCount() throws -> Int {
        let rows = try database.read { connection in
            try connection.run("SELECT COUNT(*) FROM outbox WHERE state = 'pending'")
        }
        return try Self.scalar(rows)
    }

    public func latestShipment(of number: TrackingNumber) throws -> LatestShipment? {
        let rows = try database.read { connection in
            try connection.run("SELECT json, fetched_at FROM shipments WHERE number = ?", [.text(number.digits)])
        }
        guard let row = rows.first else { return nil }
        return LatestShipment(fetchedAt: try row.requiredDate("fetched_at"), json: try row.requiredData("json"))
    }

    public func checkReachable() throws {
        _ = try database.read { connection in try connection.run("SELECT 1").count }
    }

    // MARK: API keys

    public func createKey(name: String, keyHash: Data, calendarHash: Data, now: Date) throws -> APIKeyRecord {
        do {
            let id = try database.write { connection in
                let rows = try connection.run(
                    "INSERT INTO api_keys (name, key_hash, calendar_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                    [.text(name), .blob(keyHash), .blob(calendarHash), .real(now.timeIntervalSince1970)])
                guard let row = rows.first else { throw StoreError(code: 0, message: "the new key's id was not returned") }
                return Int64(try row.requiredInt("id"))
            }
            return APIKeyRecord(
                id: id, name: name, keyHash: keyHash, calendarHash: calendarHash, createdAt: now, revokedAt: nil)
        } catch let error as StoreError where error.isUniqueViolation {
            throw WatchStoreError.duplicateKeyName(name)
        }
    }

    public func keysOpenedAt() throws -> Date? {
        let rows = try database.read { connection in
            try connection.run("SELECT value FROM settings WHERE name = 'keys_opened_at'")
        }
        guard let row = rows.first else { return nil }
        return Double(try row.requiredText("value")).map(Date.init(timeIntervalSince1970:))
    }

    public func openWithoutKeys(at: Date) throws {
        _ = try database.write { connection in
            try connection.run(
                """
                INSERT INTO settings (name, value) VALUES ('keys_opened_at', ?)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, [.text(String(at.timeIntervalSince1970))])
        }
    }

    public func keys() throws -> [APIKeyRecord] {
        let rows = try database.read { connection in
            try connection.run(
                "SELECT id, name, key_hash, calendar_hash, created_at, revoked_at FROM api_keys ORDER BY id")
        }
        return try rows.map { row in
            APIKeyRecord(
                id: Int64(try row.requiredInt("id")), name: try row.requiredText("name"),
                keyHash: try row.requiredData("key_hash"), calendarHash: try row.requiredData("calendar_hash"),
                createdAt: try row.requiredDate("created_at"), revokedAt: try row.date("revoked_at"))
        }
    }

    public func revokeKey(_ nameOrID: String, now: Date) throws -> Bool {
        try database.write { connection in
            try connection.run(
                "UPDATE api_keys SET revoked_at = ? WHERE (name = ? OR id = ?) AND revoked_at IS NULL",
                [.real(now.timeIntervalSince1970), .text(nameOrID), .integer(Int64(nameOrID) ?? -1)])
            return connection.changes > 0
        }
    }

    // MARK: Rows

    /// A row of ``watchColumns``.
    private static func watch(from row: SQLRow) throws -> Watch {
        let digits = try row.requiredText("number")
        guard let number = try? TrackingNumber(parsing: digits) else {
            throw StoreError(code: 0, message: "the watch list holds \"\(digits.prefix(20))\", which is not a tracking number")
        }
        var latest: LatestShipment?
        if let json = try row.data("json"), let fetchedAt = try row.date("fetched_at") {
            latest = LatestShipment(fetchedAt: fetchedAt, json: json)
        }
        var ended: WebhookEnd?
        if let at = try row.date("ended_at") { ended = WebhookEnd(at: at, reason: try row.text("ended_reason") ?? "") }
        return Watch(
            id: Int64(try row.requiredInt("id")), owner: WatchOwner(id: try row.requiredText("owner")), number: number,
            label: try row.text("label"), createdAt: try row.requiredDate("created_at"),
            active: try row.requiredInt("active") == 1, checkedAt: try row.date("checked_at"),
            nextCheckAt: try row.requiredDate("next_check_at"), latest: latest, webhookURL: try row.text("url"),
            webhookEnded: ended)
    }

    /// The one integer of a one-column result (a count, a version); 0 for no row or NULL.
    private static func scalar(_ rows: [SQLRow]) throws -> Int {
        guard let row = rows.first else { return 0 }
        guard row.values.count == 1 else {
            throw StoreError(code: 0, message: "expected one column, found \(row.columns.names.joined(separator: ", "))")
        }
        switch row.values[0] {
        case .null: return 0
        case .integer(let value): return Int(value)
        case let other: throw StoreError(code: 0, message: "expected an integer, found \(other.kind)")
        }
    }

    /// The `status` object of a served shipment's JSON.
    private static func statusJSON(ofServed json: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let status = object["status"]
        else { return nil }
        return try? JSONSerialization.data(withJSONObject: status, options: [.sortedKeys])
    }
}

/// The watch store on SQLite: one file, the default.
public typealias SQLiteWatchStore = SQLWatchStore<SQLiteDatabase>

extension SQLWatchStore where Database == SQLiteDatabase {
    /// Opens (creating and migrating) the database at `path`; `announce` is told what each migration does
    /// before it runs. A file from a newer Kuroneko is refused untouched (``NewerSchemaError``).
    public convenience init(path: String, announce: (@Sendable (String) -> Void)? = nil) throws {
        self.init(database: try SQLiteDatabase(path: path, migrations: Schema.migrations, announce: announce))
    }

    /// The default file: `$XDG_DATA_HOME/kuroneko/kuroneko.sqlite`, else `~/.local/share/kuroneko/…`.
    public static func defaultPath(environment: [String: String]) -> String {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/kuroneko/kuroneko.sqlite"
    }
}
