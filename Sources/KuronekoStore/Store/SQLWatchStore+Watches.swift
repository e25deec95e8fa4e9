import Foundation
import Kuroneko

/// Watches: adding (within the per-owner limit, racing deletes and other servers), reading, removing, and
/// each watch's changes and delivery attempts.
extension SQLWatchStore {
    public func add(
        _ number: TrackingNumber, carrier: Carrier?, label: String?, record: ParcelRecordChange?, owner: WatchOwner,
        webhook: (url: String, secret: String)?, now: Date
    ) async throws -> AddedWatch {
        // The limit is refused inside the transaction, which it rolls back, as the typed error it is.
        let outcome = try await addRow(
            number, carrier: carrier, label: label, record: record, owner: owner, webhook: webhook, now: now)
        // Read in the same transaction as the insert: missing only when a delete of the same number won.
        guard let watch = outcome.watch else { throw WatchStoreError.removedWhileAdding(number.formatted) }
        return AddedWatch(watch: watch, created: outcome.created, webhookSecret: outcome.secret)
    }

    private func addRow(
        _ number: TrackingNumber, carrier: Carrier?, label: String?, record change: ParcelRecordChange?,
        owner: WatchOwner, webhook: (url: String, secret: String)?, now: Date
    ) async throws -> (created: Bool, secret: String?, watch: Watch?) {
        try await database.write { connection in
            if let lock = Database.ownerLock { try connection.run(lock, [.text(owner.id)]) }
            return try self.addRow(
                number, carrier: carrier, label: label, record: change, owner: owner, webhook: webhook, now: now,
                on: connection)
        }
    }

    /// Adds many watches in one transaction (a sheet's rows, a batch at a time): each row as ``add(_:carrier:label:record:owner:webhook:now:)``
    /// adds it, its outcome in order; a row refused (another carrier, a record refused) is its error and the rest go
    /// on; the list's limit ends the batch there (the rows after it are not tried: `nil`).
    public func addMany(_ rows: [NewWatchRow], owner: WatchOwner, now: Date) async throws -> [Result<Bool, any Error>?] {
        try await database.write { connection in
            if let lock = Database.ownerLock { try connection.run(lock, [.text(owner.id)]) }
            var outcomes: [Result<Bool, any Error>?] = []
            for row in rows {
                do {
                    let added = try self.addRow(
                        row.number, carrier: row.carrier, label: row.label, record: row.record, owner: owner,
                        webhook: nil, now: now, on: connection)
                    outcomes.append(.success(added.created))
                } catch let error as WatchStoreError {
                    outcomes.append(.failure(error))
                    if case .limitReached = error { break }
                } catch let error as ParcelRecordError {
                    outcomes.append(.failure(error))
                }
            }
            return outcomes + Array(repeating: nil, count: rows.count - outcomes.count)
        }
    }

    private func addRow(
        _ number: TrackingNumber, carrier: Carrier?, label: String?, record change: ParcelRecordChange?,
        owner: WatchOwner, webhook: (url: String, secret: String)?, now: Date, on connection: Database.Connection
    ) throws -> (created: Bool, secret: String?, watch: Watch?) {
        do {
            func row(_ id: Int64?) throws -> Watch? {
                guard let id else { return nil }
                return try connection.run(Self.watchColumns + " WHERE w.id = ?", [.integer(id)]).first.map(
                    Self.watch(from:))
            }
            let existing = try connection.run(
                "SELECT id, carrier FROM watches WHERE owner = ? AND number = ?",
                [.text(owner.id), .text(number.digits)])
            var watchID = try existing.first.map { Int64(try $0.requiredInt("id")) }
            if let carrier, let found = try existing.first?.text("carrier"), found != carrier.rawValue {
                throw WatchStoreError.watchedAtAnotherCarrier(number.formatted, (try? Carrier(named: found)) ?? .yamato)
            }
            var created = watchID == nil
            // Known again (an import run twice, a mail read again): the record takes what is new, in this transaction.
            if let watchID, let change {
                try Self.changeRecord(watchID, change, by: owner.id, now: now, on: connection)
            }
            if watchID == nil {
                // Kept by triggers on every insert, change and delete: no count of the whole list per add.
                let count = try connection.run(
                    "SELECT COALESCE(SUM(watches), 0) AS n FROM watch_tallies WHERE owner = ?", [.text(owner.id)])
                guard try (count.first?.requiredInt("n") ?? 0) < self.maxWatchesPerOwner else {
                    throw WatchStoreError.limitReached(self.maxWatchesPerOwner)
                }
                // A shipment already known for the number (at the carrier named) is the new watch's baseline.
                let known = try connection.run(
                    "SELECT status_label, json FROM shipments WHERE number = ?", [.text(number.digits)]
                ).filter { row in
                    guard let carrier else { return true }
                    let served = try? row.data("json").flatMap { try JSONDecoder().decode(Shipment.self, from: $0) }
                    return served?.carrier == carrier
                }
                let baselineLabel = try known.first?.text("status_label")
                let servedJSON = try known.first?.data("json")
                let baselineJSON = servedJSON.flatMap(Self.statusJSON(ofServed:))
                let record = try change?.apply(to: nil, now: now, by: owner.id)
                var listed = ListColumns(servedJSON: servedJSON, label: label, digits: number.digits, record: record)
                // A number the carrier does not know yet, added just now: waiting, until the grace has passed.
                if listed.statusCode == StatusCode.notFound.rawValue { listed.family = WatchFamily.waiting.rawValue }
                // Another server may add the same watch at the same moment: the unique key decides.
                let inserted = try connection.run(
                    """
                    INSERT INTO watches (owner, number, carrier, label, created_at, active, status_label, status_json,
                        next_check_at, record, status_code, family, forecast_date, last_event_at, dated, search_text)
                    VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (owner, number) DO NOTHING RETURNING id
                    """,
                    [
                        .text(owner.id), .text(number.digits), carrier.map { SQLValue.text($0.rawValue) } ?? .null,
                        label.map(SQLValue.text) ?? .null,
                        .real(now.timeIntervalSince1970), baselineLabel.map(SQLValue.text) ?? .null,
                        baselineJSON.map(SQLValue.blob) ?? .null, .real(now.timeIntervalSince1970),
                        record.map { SQLValue.text(String(decoding: $0.json, as: UTF8.self)) } ?? .null,
                    ] + listed.values)
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

    public func watch(_ number: TrackingNumber, owner: WatchOwner) async throws -> Watch? {
        let rows = try await database.read { connection in
            try connection.run(
                Self.watchColumns + " WHERE w.owner = ? AND w.number = ?", [.text(owner.id), .text(number.digits)])
        }
        return try rows.first.map(Self.watch(from:))
    }

    public func watches(owner: WatchOwner, filter: WatchFilter, after cursor: Int64?, limit: Int) async throws -> [Watch] {
        var query = WatchQuery()
        query.state = filter
        return try await watches(owner: owner, matching: query, after: cursor, limit: limit, now: Date())
    }

    public func watches(owner: WatchOwner, matching query: WatchQuery, after cursor: Int64?, limit: Int, now: Date)
        async throws -> [Watch]
    {
        let (conditions, arguments) = query.conditions(now: now, match: database.textMatch)
        let owned = query.ownerCondition(match: database.textMatch)
        let rows = try await database.read { connection in
            try connection.run(
                Self.watchColumns + " WHERE " + owned + " AND w.id > ?"
                    + conditions + " ORDER BY w.id LIMIT ?",
                [.text(owner.id), .integer(cursor ?? 0)] + arguments + [.integer(Int64(max(0, limit)))])
        }
        return try rows.map(Self.watch(from:))
    }

    public func recordFieldNames(owner: WatchOwner, matching query: WatchQuery, now: Date, limit: Int) async throws
        -> [String]
    {
        let (conditions, arguments) = query.conditions(now: now, match: database.textMatch)
        let owned = query.ownerCondition(match: database.textMatch)
        var names: [String] = []
        var seen = Set<String>()
        var cursor: Int64 = 0
        while names.count < limit {
            let values: [SQLValue] = [.text(owner.id), .integer(cursor)] + arguments
            let rows = try await database.read { connection in
                try connection.run(
                    "SELECT w.id, w.record FROM watches w WHERE " + owned
                        + " AND w.id > ? AND w.record LIKE '%\"fields\":%'"
                        + conditions + " ORDER BY w.id LIMIT 2000", values)
            }
            for row in rows {
                let fields = ParcelRecord.decode(try row.text("record").map { Data($0.utf8) })?.fields ?? []
                for field in fields where names.count < limit && seen.insert(field.name).inserted {
                    names.append(field.name)
                }
            }
            guard rows.count == 2000, let last = rows.last else { break }
            cursor = Int64(try last.requiredInt("id"))
        }
        return names
    }

    public func watchSummary(owner: WatchOwner, matching query: WatchQuery, now: Date) async throws -> WatchSummary {
        let counted = query.counted
        let today = ForecastDay.today.isoDate(now: now)
        let tomorrow = ForecastDay.tomorrow.isoDate(now: now)
        // Narrowed by state and carrier only, the tallies the triggers keep answer (a few rows per status and
        // day, whatever the list's size); a search counts the watches it finds.
        let fromTallies = counted.text.flatMap(SearchText.needle) == nil && !counted.dated
        let match = database.textMatch
        let rows = try await database.read { connection in
            if fromTallies {
                var sql = """
                    SELECT family, status_code, active, forecast_date, SUM(watches) AS n FROM watch_tallies
                    WHERE owner = ?
                    """
                var arguments: [SQLValue] = [.text(owner.id)]
                switch counted.state {
                case .all: break
                case .active: sql += " AND active = 1"
                case .finished: sql += " AND active = 0"
                }
                if let carrier = counted.carrier {
                    sql += " AND carrier = ?"
                    arguments.append(.text(carrier.rawValue))
                }
                return try connection.run(sql + " GROUP BY family, status_code, active, forecast_date", arguments)
            }
            // Stalled and late parcels counted in the same pass: the search is run once.
            let (conditions, arguments) = counted.conditions(now: now, match: match)
            return try connection.run(
                """
                SELECT w.family, COALESCE(w.status_code, '') AS status_code, w.active,
                    COALESCE(w.forecast_date, '') AS forecast_date, COUNT(*) AS n,
                    SUM(CASE WHEN w.stalled_at IS NOT NULL AND w.active = 1 THEN 1 ELSE 0 END) AS stalled,
                    SUM(CASE WHEN w.overdue_at IS NOT NULL AND w.active = 1 THEN 1 ELSE 0 END) AS overdue
                FROM watches w WHERE
                """ + " " + counted.ownerCondition(match: match) + conditions + " GROUP BY w.family, w.status_code, w.active, w.forecast_date",
                [.text(owner.id)] + arguments)
        }
        var summary = WatchSummary()
        if fromTallies {
            // Their own indexes answer these two for the whole list (or a state or carrier of it).
            let (conditions, arguments) = counted.conditions(now: now, match: match)
            summary.stalled = try await database.read { connection in
                try Self.scalar(
                    connection.run(
                        "SELECT COUNT(*) AS n FROM watches w WHERE w.owner = ? AND w.stalled_at IS NOT NULL AND w.active = 1"
                            + conditions, [.text(owner.id)] + arguments))
            }
            summary.overdue = try await database.read { connection in
                try Self.scalar(
                    connection.run(
                        "SELECT COUNT(*) AS n FROM watches w WHERE w.owner = ? AND w.overdue_at IS NOT NULL AND w.active = 1"
                            + conditions, [.text(owner.id)] + arguments))
            }
        }
        for row in rows {
            let count = try row.requiredInt("n")
            guard count > 0 else { continue }
            let active = try row.requiredInt("active") == 1
            summary.total += count
            if active { summary.active += count }
            summary.byFamily[try row.requiredText("family"), default: 0] += count
            if let code = try row.text("status_code"), !code.isEmpty { summary.byCode[code, default: 0] += count }
            let day = try row.text("forecast_date")
            if active, day == today { summary.forecastToday += count }
            if active, day == tomorrow { summary.forecastTomorrow += count }
            if !fromTallies {
                summary.stalled += try row.int("stalled") ?? 0
                summary.overdue += try row.int("overdue") ?? 0
            }
        }
        return summary
    }

    public func remove(_ number: TrackingNumber, owner: WatchOwner) async throws -> Bool {
        try await remove([number], owner: owner)[0]
    }

    public func remove(_ numbers: [TrackingNumber], owner: WatchOwner) async throws -> [Bool] {
        try await database.write { connection in
            try numbers.map { number in try Self.removeRow(number.digits, owner: owner, on: connection) }
        }
    }

    /// Deletes an owner's watch of a number; the number's history goes with its last watch.
    private static func removeRow(_ digits: String, owner: WatchOwner, on connection: Database.Connection) throws
        -> Bool
    {
        try connection.run("DELETE FROM watches WHERE owner = ? AND number = ?", [.text(owner.id), .text(digits)])
        let removed = connection.changes > 0
        if removed { try forgetIfUnwatched(digits, on: connection) }
        return removed
    }

    private static func forgetIfUnwatched(_ digits: String, on connection: Database.Connection) throws {
        let left = try connection.run("SELECT 1 FROM watches WHERE number = ? LIMIT 1", [.text(digits)])
        guard left.isEmpty else { return }
        try connection.run("DELETE FROM shipments WHERE number = ?", [.text(digits)])
        try connection.run("DELETE FROM events WHERE number = ?", [.text(digits)])
    }

    public func removeFinished(owner: WatchOwner, checkedBefore: Date?) async throws -> [String] {
        try await database.write { connection in
            let older = checkedBefore.map { _ in " AND checked_at < ?" } ?? ""
            let values: [SQLValue] =
                [.text(owner.id)] + (checkedBefore.map { [.real($0.timeIntervalSince1970)] } ?? [])
            let finished = try connection.run(
                "SELECT number FROM watches WHERE owner = ? AND active = 0" + older, values
            ).map { try $0.requiredText("number") }
            try connection.run("DELETE FROM watches WHERE owner = ? AND active = 0" + older, values)
            // A number's history goes with its last watch.
            for digits in finished { try Self.forgetIfUnwatched(digits, on: connection) }
            return finished
        }
    }

    public func forgetFinished(checkedBefore: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            let rows = try connection.run(
                "SELECT id, number FROM watches WHERE active = 0 AND checked_at < ? ORDER BY id LIMIT ?",
                [.real(checkedBefore.timeIntervalSince1970), .integer(Int64(max(1, limit)))])
            for row in rows {
                try connection.run("DELETE FROM watches WHERE id = ?", [.integer(Int64(try row.requiredInt("id")))])
            }
            for digits in Set(try rows.map { try $0.requiredText("number") }) {
                try Self.forgetIfUnwatched(digits, on: connection)
            }
            return rows.count
        }
    }

    public func update(
        _ number: TrackingNumber, owner: WatchOwner, label: String??, record: ParcelRecordChange?,
        webhook: (url: String, secret: String)??, now: Date
    ) async throws -> Watch? {
        try await database.write { connection in
            let found = try connection.run(
                "SELECT id FROM watches WHERE owner = ? AND number = ?", [.text(owner.id), .text(number.digits)])
            guard let id = try found.first.map({ Int64(try $0.requiredInt("id")) }) else { return nil }
            if let label {
                try connection.run("UPDATE watches SET label = ? WHERE id = ?", [label.map(SQLValue.text) ?? .null, .integer(id)])
            }
            if let record {
                try Self.changeRecord(id, record, by: owner.id, now: now, on: connection)
            } else if label != nil {
                try Self.refreshSearchText(id, on: connection)
            }
            if let webhook {
                try connection.run("DELETE FROM subscriptions WHERE watch_id = ?", [.integer(id)])
                if let webhook {
                    try connection.run(
                        "INSERT INTO subscriptions (watch_id, url, secret, created_at) VALUES (?, ?, ?, ?)",
                        [.integer(id), .text(webhook.url), .text(webhook.secret), .real(now.timeIntervalSince1970)])
                }
            }
            return try connection.run(Self.watchColumns + " WHERE w.id = ?", [.integer(id)]).first.map(
                Self.watch(from:))
        }
    }

    /// Applies a change to a watch's record and keeps its search text with it.
    private static func changeRecord(
        _ id: Int64, _ change: ParcelRecordChange, by actor: String, now: Date, on connection: Database.Connection
    ) throws {
        let current = try connection.run("SELECT record FROM watches WHERE id = ?", [.integer(id)]).first
        let stored = ParcelRecord.decode(try current?.text("record").map { Data($0.utf8) })
        let record = try change.apply(to: stored, now: now, by: actor)
        try connection.run(
            "UPDATE watches SET record = ? WHERE id = ?",
            [record.map { SQLValue.text(String(decoding: $0.json, as: UTF8.self)) } ?? .null, .integer(id)])
        try refreshSearchText(id, on: connection)
    }

    /// Writes a watch's search text again from its label, number and record.
    private static func refreshSearchText(_ id: Int64, on connection: Database.Connection) throws {
        guard let row = try connection.run("SELECT label, number, record FROM watches WHERE id = ?", [.integer(id)]).first
        else { return }
        let record = ParcelRecord.decode(try row.text("record").map { Data($0.utf8) })
        let text = SearchText.stored(label: try row.text("label"), digits: try row.requiredText("number"), record: record)
        try connection.run("UPDATE watches SET search_text = ? WHERE id = ?", [.text(text), .integer(id)])
    }

    public func changes(of number: TrackingNumber, owner: WatchOwner) async throws -> [StatusChange]? {
        guard let watch = try await watch(number, owner: owner) else { return nil }
        let rows = try await database.read { connection in
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

    public func deliveries(of number: TrackingNumber, owner: WatchOwner) async throws -> [DeliveryRecord]? {
        guard let watch = try await watch(number, owner: owner) else { return nil }
        let rows = try await database.read { connection in
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
}
