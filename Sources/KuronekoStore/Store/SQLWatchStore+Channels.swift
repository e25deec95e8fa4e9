import Foundation
import Kuroneko

/// Notification channels: an owner's destinations, the outbox of announcements for them (filled in the
/// same transaction as the change it announces, so nothing is lost to a crash), and every attempt.
extension SQLWatchStore {
    static var channelColumns: String {
        """
        SELECT ch.id, ch.owner, ch.kind, ch.destination, ch.numbers, ch.kinds, ch.lang, ch.quiet_hours,
               ch.created_at, ch.ended_at, ch.ended_reason, ch.state, ch.member_id, ch.device
        FROM channels ch
        """
    }

    static func channel(from row: SQLRow) throws -> ChannelRecord {
        let numbers = try row.text("numbers").map { $0.split(separator: ",").map(String.init) }
        let kinds = try row.requiredText("kinds").split(separator: ",").compactMap {
            AnnouncementKind(rawValue: String($0))
        }
        var record = ChannelRecord(
            id: Int64(try row.requiredInt("id")), owner: WatchOwner(id: try row.requiredText("owner")),
            kind: try row.requiredText("kind"), destination: try row.requiredData("destination"), numbers: numbers,
            kinds: kinds, language: try row.requiredText("lang"), quietHours: try row.text("quiet_hours"),
            createdAt: try row.requiredDate("created_at"), endedAt: try row.date("ended_at"),
            endedReason: try row.text("ended_reason"))
        record.state = try row.text("state").map { Data($0.utf8) }
        record.member = try row.int("member_id").map(Int64.init)
        record.device = try row.text("device")
        return record
    }

    public func addChannel(_ channel: NewChannel, owner: WatchOwner, now: Date) async throws -> ChannelRecord {
        try await addChannel(channel, owner: owner, member: nil, device: nil, now: now)
    }

    public func addChannel(_ channel: NewChannel, owner: WatchOwner, member: Int64?, device: String?, now: Date)
        async throws -> ChannelRecord
    {
        try await database.write { connection in
            if let lock = Database.ownerLock { try connection.run(lock, [.text(owner.id)]) }
            let count = try connection.run(
                "SELECT COUNT(*) AS n FROM channels WHERE owner = ? AND ended_at IS NULL", [.text(owner.id)])
            guard try (count.first?.requiredInt("n") ?? 0) < ChannelLimits.channelsPerOwner else {
                throw WatchStoreError.channelLimitReached(ChannelLimits.channelsPerOwner)
            }
            let inserted = try connection.run(
                """
                INSERT INTO channels (owner, kind, destination, numbers, kinds, lang, quiet_hours, created_at, member_id,
                    device)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(owner.id), .text(channel.kind), .blob(channel.destination),
                    channel.numbers.map { .text($0.joined(separator: ",")) } ?? .null,
                    .text(channel.kinds.map(\.rawValue).joined(separator: ",")), .text(channel.language),
                    channel.quietHours.map(SQLValue.text) ?? .null, .real(now.timeIntervalSince1970),
                    member.map(SQLValue.integer) ?? .null, device.map(SQLValue.text) ?? .null,
                ])
            guard let id = try inserted.first?.requiredInt("id") else {
                throw StoreError(code: 0, message: "the new channel's id was not returned")
            }
            if channel.kinds.contains(.morningSummary) {
                try connection.run(
                    "INSERT INTO morning_summaries (channel_id, minute) VALUES (?, ?)",
                    [.integer(Int64(id)), .integer(Int64(channel.summaryMinute ?? MorningSummaryTime.defaultMinute))])
            }
            let rows = try connection.run(Self.channelColumns + " WHERE ch.id = ?", [.integer(Int64(id))])
            guard let row = rows.first else { throw StoreError(code: 0, message: "the new channel was not found") }
            return try Self.channel(from: row)
        }
    }

    public func channels(owner: WatchOwner) async throws -> [ChannelRecord] {
        try await database.read { connection in
            try connection.run(Self.channelColumns + " WHERE ch.owner = ? ORDER BY ch.id", [.text(owner.id)])
        }.map(Self.channel(from:))
    }

    public func removeChannel(_ id: Int64, owner: WatchOwner) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM channels WHERE id = ? AND owner = ?", [.integer(id), .text(owner.id)])
            return connection.changes > 0
        }
    }

    /// Queues the announcement of a change for the channels of the watch's owner that hear it, on the
    /// connection of the transaction that records the change.
    func queueAnnouncements(
        _ kind: AnnouncementKind, watchID: Int64, owner: String, number: TrackingNumber, label: String?,
        shipment: Data, at now: Date, on connection: Database.Connection
    ) throws -> Int {
        let channels = try connection.run(
            Self.channelColumns + " WHERE ch.owner = ? AND ch.ended_at IS NULL", [.text(owner)]
        ).map(Self.channel(from:)).filter { $0.hears(kind, for: number) }
        for channel in channels {
            try connection.run(
                """
                INSERT INTO channel_outbox (channel_id, watch_id, kind, label, shipment_json, created_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(channel.id), .integer(watchID), .text(kind.rawValue), label.map(SQLValue.text) ?? .null,
                    .blob(shipment), .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970),
                ])
        }
        return channels.count
    }

    public func promoteWaiting(now: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            let rows = try connection.run(
                """
                SELECT w.id, w.owner, w.number, w.label, s.json FROM watches w
                LEFT JOIN shipments s ON s.number = w.number
                WHERE w.family = 'waiting' AND w.created_at <= ? ORDER BY w.id LIMIT ?
                """, [.real(now.timeIntervalSince1970 - self.unregisteredGrace), .integer(Int64(max(1, limit)))])
            var promoted = 0
            for row in rows {
                let id = Int64(try row.requiredInt("id"))
                try connection.run("UPDATE watches SET family = 'problem' WHERE id = ? AND family = 'waiting'", [.integer(id)])
                guard connection.changes > 0 else { continue }
                promoted += 1
                // Said once: the number is still unknown to its carrier after the grace.
                guard let json = try row.data("json"),
                    let number = try? TrackingNumber(parsing: try row.requiredText("number"))
                else { continue }
                _ = try self.queueAnnouncements(
                    .exception, watchID: id, owner: try row.requiredText("owner"), number: number,
                    label: try row.text("label"), shipment: json, at: now, on: connection)
            }
            return promoted
        }
    }

    public func markStalled(now: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            var marked = 0
            for (code, seconds) in StallLimits.limits where marked < limit {
                // The latest event's time as the list keeps it (ISO 8601 in Japan time, so text order is time order).
                let before = JapanDateTime(now.addingTimeInterval(-seconds)).iso8601
                let rows = try connection.run(
                    """
                    SELECT w.id, w.owner, w.number, w.label, s.json FROM watches w
                    LEFT JOIN shipments s ON s.number = w.number
                    WHERE w.active = 1 AND w.stalled_at IS NULL AND w.status_code = ? AND w.last_event_at < ?
                    ORDER BY w.id LIMIT ?
                    """, [.text(code.rawValue), .text(before), .integer(Int64(limit - marked))])
                marked += try self.markAndAnnounce(rows, .stalled, at: now, on: connection) { id, _ in
                    ("UPDATE watches SET stalled_at = ? WHERE id = ? AND stalled_at IS NULL",
                     [.real(now.timeIntervalSince1970), .integer(id)])
                }
            }
            return marked
        }
    }

    public func markOverdue(now: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            // Still on its way (accepted, in transit, out for delivery) past the end of its plan; a problem, a
            // parcel going back or one not yet known is told otherwise.
            let rows = try connection.run(
                """
                SELECT w.id, w.owner, w.number, w.label, s.json FROM watches w
                LEFT JOIN shipments s ON s.number = w.number
                WHERE w.due_at < ? AND w.active = 1 AND w.overdue_at IS NULL
                    AND w.family IN ('accepted', 'transit', 'out')
                ORDER BY w.due_at LIMIT ?
                """, [.real(now.timeIntervalSince1970), .integer(Int64(max(1, limit)))])
            return try self.markAndAnnounce(rows, .overdue, at: now, on: connection) { id, _ in
                ("UPDATE watches SET overdue_at = ? WHERE id = ? AND overdue_at IS NULL",
                 [.real(now.timeIntervalSince1970), .integer(id)])
            }
        }
    }

    public func announceKeptReminders(now: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            // Due, not yet said for this keeping, and not more than a day late (a server that was off says
            // nothing of a parcel already gone back).
            let rows = try connection.run(
                """
                SELECT w.id, w.owner, w.number, w.label, w.reminder_key, s.json FROM watches w
                LEFT JOIN shipments s ON s.number = w.number
                WHERE w.reminder_at <= ? AND w.reminder_at > ? AND w.active = 1
                    AND w.reminder_key IS NOT NULL AND (w.reminded_key IS NULL OR w.reminded_key <> w.reminder_key)
                ORDER BY w.reminder_at LIMIT ?
                """,
                [
                    .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970 - 86_400),
                    .integer(Int64(max(1, limit))),
                ])
            return try self.markAndAnnounce(rows, .keptReminder, at: now, on: connection) { id, row in
                let key = try row.requiredText("reminder_key")
                return (
                    "UPDATE watches SET reminded_key = ? WHERE id = ? AND (reminded_key IS NULL OR reminded_key <> ?)",
                    [.text(key), .integer(id), .text(key)]
                )
            }
        }
    }

    /// Marks each row (`mark` gives the guarded UPDATE: it changes nothing for a row another server marked
    /// first) and queues `kind` for the channels of each row it marked. - Returns: how many it marked.
    private func markAndAnnounce(
        _ rows: [SQLRow], _ kind: AnnouncementKind, at now: Date, on connection: Database.Connection,
        mark: (Int64, SQLRow) throws -> (String, [SQLValue])
    ) throws -> Int {
        var marked = 0
        for row in rows {
            let id = Int64(try row.requiredInt("id"))
            let (sql, arguments) = try mark(id, row)
            try connection.run(sql, arguments)
            guard connection.changes > 0 else { continue }
            marked += 1
            guard let json = try row.data("json"), let number = try? TrackingNumber(parsing: try row.requiredText("number"))
            else { continue }
            _ = try queueAnnouncements(
                kind, watchID: id, owner: try row.requiredText("owner"), number: number, label: try row.text("label"),
                shipment: json, at: now, on: connection)
        }
        return marked
    }

    @discardableResult
    public func announce(_ kind: AnnouncementKind, watch: Watch, shipment: Data, at now: Date) async throws -> Int {
        try await database.write { connection in
            try self.queueAnnouncements(
                kind, watchID: watch.id, owner: watch.owner.id, number: watch.number, label: watch.label,
                shipment: shipment, at: now, on: connection)
        }
    }

    public func claimChannelDeliveries(
        at now: Date, limit: Int, leaseUntil: Date, excludingChannels busy: Set<Int64>
    ) async throws -> [PendingChannelDelivery] {
        let busyClause =
            busy.isEmpty
            ? "" : " AND o.channel_id NOT IN (" + Array(repeating: "?", count: busy.count).joined(separator: ", ") + ")"
        let rows = try await database.write { connection in
            // The oldest pending announcement of each channel: in order per channel, one channel never
            // waiting for another.
            let due = try connection.run(
                """
                SELECT o.id AS outbox_id, o.kind AS announcement, o.label, o.shipment_json, o.attempts,
                       o.created_at AS queued_at, ch.id, ch.owner, ch.kind, ch.destination, ch.numbers, ch.kinds,
                       ch.lang, ch.quiet_hours, ch.created_at, ch.ended_at, ch.ended_reason, ch.state, ch.member_id, ch.device
                FROM channel_outbox o JOIN channels ch ON ch.id = o.channel_id
                WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND ch.ended_at IS NULL
                  AND o.id = (SELECT MIN(id) FROM channel_outbox p WHERE p.channel_id = o.channel_id AND p.state = 'pending')
                """ + busyClause + " ORDER BY o.next_attempt_at LIMIT ?" + Database.skippingLocked(of: "o"),
                [.real(now.timeIntervalSince1970)] + busy.sorted().map { .integer($0) } + [.integer(Int64(limit))])
            guard Database.leasesClaims else { return due }
            return try due.filter { row in
                try connection.run(
                    """
                    UPDATE channel_outbox SET next_attempt_at = ?
                    WHERE id = ? AND state = 'pending' AND next_attempt_at <= ?
                    """,
                    [
                        .real(leaseUntil.timeIntervalSince1970), .integer(Int64(try row.requiredInt("outbox_id"))),
                        .real(now.timeIntervalSince1970),
                    ])
                return connection.changes > 0
            }
        }
        return try rows.compactMap(Self.pendingChannelDelivery(from:))
    }

    public func recordChannelAttempt(
        _ outboxID: Int64, at: Date, status: Int?, error: String?, durationMilliseconds: Double, delivered: Bool,
        retryAt: Date?
    ) async throws {
        try await recordAttempt(
            in: ("channel_outbox", "channel_attempts"), outboxID, at: at, status: status, error: error,
            durationMilliseconds: durationMilliseconds, delivered: delivered, retryAt: retryAt)
    }

    public func setChannelState(_ id: Int64, _ state: Data) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE channels SET state = ? WHERE id = ?", [.text(String(decoding: state, as: UTF8.self)), .integer(id)])
        }
    }

    public func channelBacklog(_ id: Int64, limit: Int) async throws -> [PendingChannelDelivery] {
        let rows = try await database.read { connection in
            try connection.run(
                """
                SELECT o.id AS outbox_id, o.kind AS announcement, o.label, o.shipment_json, o.attempts,
                       o.created_at AS queued_at, ch.id, ch.owner, ch.kind, ch.destination, ch.numbers, ch.kinds,
                       ch.lang, ch.quiet_hours, ch.created_at, ch.ended_at, ch.ended_reason, ch.state, ch.member_id, ch.device
                FROM channel_outbox o JOIN channels ch ON ch.id = o.channel_id
                WHERE o.channel_id = ? AND o.state = 'pending' ORDER BY o.id LIMIT ?
                """, [.integer(id), .integer(Int64(max(1, limit)))])
        }
        return try rows.compactMap(Self.pendingChannelDelivery(from:))
    }

    static func pendingChannelDelivery(from row: SQLRow) throws -> PendingChannelDelivery? {
        guard let kind = AnnouncementKind(rawValue: try row.requiredText("announcement")) else { return nil }
        return PendingChannelDelivery(
            outboxID: Int64(try row.requiredInt("outbox_id")), channel: try Self.channel(from: row), kind: kind,
            label: try row.text("label"), shipment: try row.requiredData("shipment_json"),
            attempts: try row.requiredInt("attempts"), createdAt: try row.requiredDate("queued_at"))
    }

    public func endChannel(_ id: Int64, at: Date, reason: String) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE channels SET ended_at = ?, ended_reason = ? WHERE id = ? AND ended_at IS NULL",
                [.real(at.timeIntervalSince1970), .text(reason), .integer(id)])
            try connection.run(
                "UPDATE channel_outbox SET state = 'failed', finished_at = ? WHERE state = 'pending' AND channel_id = ?",
                [.real(at.timeIntervalSince1970), .integer(id)])
        }
    }

    public func channelDeliveries(of id: Int64, owner: WatchOwner) async throws -> [DeliveryRecord]? {
        try await database.read { connection in
            let owned = try connection.run(
                "SELECT 1 FROM channels WHERE id = ? AND owner = ?", [.integer(id), .text(owner.id)])
            guard !owned.isEmpty else { return nil }
            return try connection.run(
                """
                SELECT o.id AS outbox_id, o.state, a.at, a.status, a.error, a.duration_ms
                FROM channel_attempts a JOIN channel_outbox o ON o.id = a.outbox_id
                WHERE o.channel_id = ? ORDER BY a.id
                """, [.integer(id)]
            ).map { row in
                DeliveryRecord(
                    changeID: String(try row.requiredInt("outbox_id")), state: try row.requiredText("state"),
                    at: try row.requiredDate("at"), status: try row.int("status"), error: try row.text("error"),
                    durationMilliseconds: try row.double("duration_ms") ?? 0)
            }
        }
    }

    public func setting(_ name: String, otherwise value: String) async throws -> String {
        try await database.write { connection in
            try connection.run(
                "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                [.text(name), .text(value)])
            return try connection.run("SELECT value FROM settings WHERE name = ?", [.text(name)]).first?
                .requiredText("value") ?? value
        }
    }

    /// Announces `arriving_soon` for every active watch whose forecast window starts within `lead` of `now`
    /// (and has not started), once per window: a window that moves is announced again.
    /// - Returns: how many watches were announced.
    @discardableResult
    public func announceArrivals(now: Date, lead: TimeInterval, limit: Int) async throws -> Int {
        try await database.write { connection in
            let rows = try connection.run(
                Self.watchColumns
                    + """
                     WHERE w.active = 1 AND w.arriving_at > ? AND w.arriving_at <= ?
                      AND (w.announced_window IS NULL OR w.announced_window <> w.arriving_window)
                     ORDER BY w.arriving_at LIMIT ?
                    """,
                [
                    .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970 + lead), .integer(Int64(limit)),
                ])
            var announced = 0
            for row in rows {
                let watch = try Self.watch(from: row)
                try connection.run(
                    "UPDATE watches SET announced_window = arriving_window WHERE id = ? AND announced_window IS DISTINCT FROM arriving_window",
                    [.integer(watch.id)])
                guard connection.changes > 0, let shipment = watch.latest?.json else { continue }
                _ = try self.queueAnnouncements(
                    .arrivingSoon, watchID: watch.id, owner: watch.owner.id, number: watch.number, label: watch.label,
                    shipment: shipment, at: now, on: connection)
                announced += 1
            }
            return announced
        }
    }
}
