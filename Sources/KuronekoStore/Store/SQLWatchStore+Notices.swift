import Foundation
import Kuroneko

/// One notice to a parcel's recipient, as queued: its parcel as it stood, and its outcome so far.
public struct CustomerNoticeRecord: Sendable, Hashable {
    public let id: Int64
    public let watchID: Int64?
    public let owner: String
    public let number: String
    public let milestone: CustomerMilestone
    public let address: String
    public let recipientName: String?
    public let reference: String?
    public let shipment: Data
    /// `pending`, `sent`, `refused` (the SMTP server said no for good), `stopped` (the recipient asked for no
    /// more), `failed` (given up after retrying), `skipped` (not told: see ``error``).
    public let state: String
    public let attempts: Int
    public let createdAt: Date
    public let finishedAt: Date?
    public let status: Int?
    public let error: String?

    public init(
        id: Int64, watchID: Int64?, owner: String, number: String, milestone: CustomerMilestone, address: String,
        recipientName: String?, reference: String?, shipment: Data, state: String, attempts: Int, createdAt: Date,
        finishedAt: Date?, status: Int?, error: String?
    ) {
        self.id = id
        self.watchID = watchID
        self.owner = owner
        self.number = number
        self.milestone = milestone
        self.address = address
        self.recipientName = recipientName
        self.reference = reference
        self.shipment = shipment
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.status = status
        self.error = error
    }
}

/// How many notices ended in each state on one day (Japan's), for a shop's count.
public struct CustomerNoticeDay: Sendable, Hashable {
    /// `YYYY-MM-DD` in Japan's time.
    public let day: String
    public let state: String
    public let count: Int
}

/// Customer notices: queued in the transaction that records a parcel's answer (``queueCustomerNotice``),
/// claimed oldest first per parcel under a lease, each attempt's outcome recorded; the stop list.
extension SQLWatchStore {
    static var noticeColumns: String {
        """
        SELECT id, watch_id, owner, number, milestone, address, recipient_name, reference, shipment_json, state,
               attempts, created_at, finished_at, status, error FROM customer_notices
        """
    }

    static func notice(from row: SQLRow) throws -> CustomerNoticeRecord? {
        guard let milestone = CustomerMilestone(rawValue: try row.requiredText("milestone")) else { return nil }
        return CustomerNoticeRecord(
            id: Int64(try row.requiredInt("id")), watchID: try row.int("watch_id").map(Int64.init),
            owner: try row.requiredText("owner"), number: try row.requiredText("number"), milestone: milestone,
            address: try row.requiredText("address"), recipientName: try row.text("recipient_name"),
            reference: try row.text("reference"), shipment: try row.requiredData("shipment_json"),
            state: try row.requiredText("state"), attempts: try row.requiredInt("attempts"),
            createdAt: try row.requiredDate("created_at"), finishedAt: try row.date("finished_at"),
            status: try row.int("status"), error: try row.text("error"))
    }

    /// The milestones an owner's notices are on for; `nil` when the owner sends none.
    static func noticeChoice(owner: String, on connection: some SQLConnection) throws -> Set<CustomerMilestone>? {
        guard let data = try connection.run("SELECT json FROM notice_settings WHERE owner = ?", [.text(owner)]).first?
            .data("json"),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            object["enabled"] as? Bool == true
        else { return nil }
        return Set((object["milestones"] as? [String] ?? []).compactMap(CustomerMilestone.init(rawValue:)))
    }

    /// Queues the notice `shipment` calls for (``CustomerNoticePlan``) for `watch`'s recipient, once per parcel
    /// and milestone; a first answer that shows the parcel finished, or news over a week old, takes its
    /// milestone as `skipped`, so a later answer at the same point tells nobody either.
    func queueCustomerNotice(
        _ shipment: Shipment, served: Data, watch: Watch, firstAnswer: Bool, at: Date,
        on connection: some SQLConnection, choices: inout [String: Set<CustomerMilestone>?]
    ) throws {
        guard let record = watch.record, let address = record.recipient?.email, !address.isEmpty else { return }
        let owner = watch.owner.id
        if choices[owner] == nil { choices[owner] = .some(try Self.noticeChoice(owner: owner, on: connection)) }
        guard let chosen = choices[owner] ?? nil else { return }
        let state: String
        var reason: SQLValue = .null
        let milestone: CustomerMilestone
        switch CustomerNoticePlan.decide(shipment, firstAnswer: firstAnswer, chosen: chosen, now: at) {
        case .send(let next):
            milestone = next
            state = "pending"
        case .skip(let skip):
            guard [.finishedWhenAdded, .returningWhenAdded, .stale].contains(skip), let next = CustomerMilestone.of(shipment)
            else { return }
            milestone = next
            state = "skipped"
            reason = .text(skip.rawValue)
        }
        try connection.run(
            """
            INSERT INTO customer_notices (watch_id, owner, number, milestone, address, recipient_name, reference,
                shipment_json, state, created_at, next_attempt_at, finished_at, error)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (watch_id, milestone) DO NOTHING
            """,
            [
                .integer(watch.id), .text(owner), .text(shipment.trackingNumber.digits), .text(milestone.rawValue),
                .text(address), record.recipient?.name.map(SQLValue.text) ?? .null,
                record.reference.map(SQLValue.text) ?? .null, .blob(served), .text(state),
                .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970),
                state == "pending" ? .null : .real(at.timeIntervalSince1970), reason,
            ])
    }

    public func noticeSettingsJSON(owner: WatchOwner) async throws -> Data? {
        try await database.read { connection in
            try connection.run("SELECT json FROM notice_settings WHERE owner = ?", [.text(owner.id)]).first?.data("json")
        }
    }

    public func saveNoticeSettings(_ json: Data, owner: WatchOwner, at: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO notice_settings (owner, json, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (owner) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at
                """, [.text(owner.id), .blob(json), .real(at.timeIntervalSince1970)])
        }
    }

    /// The oldest pending notice of each parcel due now (none of `busy`'s parcels), leased until `leaseUntil`.
    public func claimCustomerNotices(at now: Date, limit: Int, leaseUntil: Date, excludingWatches busy: Set<Int64>)
        async throws -> [CustomerNoticeRecord]
    {
        guard limit > 0 else { return [] }
        let busyClause =
            busy.isEmpty
            ? "" : " AND n.watch_id NOT IN (" + Array(repeating: "?", count: busy.count).joined(separator: ", ") + ")"
        let rows = try await database.write { connection in
            let due = try connection.run(
                """
                SELECT n.id, n.watch_id, n.owner, n.number, n.milestone, n.address, n.recipient_name, n.reference,
                       n.shipment_json, n.state, n.attempts, n.created_at, n.finished_at, n.status, n.error
                FROM customer_notices n
                WHERE n.state = 'pending' AND n.next_attempt_at <= ? AND n.watch_id IS NOT NULL
                  AND n.id = (SELECT MIN(p.id) FROM customer_notices p WHERE p.watch_id = n.watch_id AND p.state = 'pending')
                """ + busyClause + " ORDER BY n.next_attempt_at, n.id LIMIT ?" + Database.skippingLocked(of: "n"),
                [.real(now.timeIntervalSince1970)] + busy.sorted().map { .integer($0) } + [.integer(Int64(limit))])
            return try due.filter { row in
                try connection.run(
                    "UPDATE customer_notices SET next_attempt_at = ? WHERE id = ? AND state = 'pending' AND next_attempt_at <= ?",
                    [
                        .real(leaseUntil.timeIntervalSince1970), .integer(Int64(try row.requiredInt("id"))),
                        .real(now.timeIntervalSince1970),
                    ])
                return connection.changes > 0
            }
        }
        return try rows.compactMap(Self.notice(from:))
    }

    /// One attempt's outcome: `sent`, `refused`, `stopped` or `failed` ends the notice; `pending` with `retryAt`
    /// tries again then.
    public func recordCustomerNotice(
        _ id: Int64, state: String, at: Date, status: Int?, error: String?, retryAt: Date?, attempted: Bool
    ) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                UPDATE customer_notices SET state = ?, attempts = attempts + ?, next_attempt_at = ?, finished_at = ?,
                    status = ?, error = ?
                WHERE id = ?
                """,
                [
                    .text(state), .integer(attempted ? 1 : 0), .real((retryAt ?? at).timeIntervalSince1970),
                    state == "pending" ? .null : .real(at.timeIntervalSince1970),
                    status.map { .integer(Int64($0)) } ?? .null, error.map(SQLValue.text) ?? .null, .integer(id),
                ])
        }
    }

    /// Puts an address on the owner's stop list (`stopped` by the recipient, `refused` by its mail server).
    public func stopCustomerNotices(owner: String, addressHash: String, reason: String, at: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "INSERT INTO notice_stops (owner, address_hash, reason, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(owner), .text(addressHash), .text(reason), .real(at.timeIntervalSince1970)])
        }
    }

    /// Why the owner sends the address nothing more (`stopped`, `refused`), or `nil`.
    public func customerNoticeStop(owner: String, addressHash: String) async throws -> String? {
        try await database.read { connection in
            try connection.run(
                "SELECT reason FROM notice_stops WHERE owner = ? AND address_hash = ?",
                [.text(owner), .text(addressHash)]
            ).first?.text("reason")
        }
    }

    /// Forgets notices that ended before `before` (their parcels long finished): the log is bounded by age.
    /// - Returns: how many were forgotten.
    @discardableResult
    public func forgetCustomerNotices(endedBefore before: Date) async throws -> Int {
        try await database.write { connection in
            try connection.run(
                "DELETE FROM customer_notices WHERE state <> 'pending' AND finished_at < ?",
                [.real(before.timeIntervalSince1970)])
            return connection.changes
        }
    }

    /// The notices of one of the owner's parcels, oldest first.
    public func customerNotices(watchID: Int64, owner: WatchOwner) async throws -> [CustomerNoticeRecord] {
        try await database.read { connection in
            try connection.run(
                Self.noticeColumns + " WHERE watch_id = ? AND owner = ? ORDER BY id",
                [.integer(watchID), .text(owner.id)]
            ).compactMap(Self.notice(from:))
        }
    }

    /// How many of the owner's notices ended (or wait) in each state, per day of Japan's time, since `since`.
    public func customerNoticeDays(owner: WatchOwner, since: Date) async throws -> [CustomerNoticeDay] {
        try await database.read { connection in
            try connection.run(
                """
                SELECT floor((COALESCE(finished_at, created_at) + 32400) / 86400) AS day, state, COUNT(*) AS notices
                FROM customer_notices WHERE owner = ? AND COALESCE(finished_at, created_at) >= ?
                GROUP BY floor((COALESCE(finished_at, created_at) + 32400) / 86400), state ORDER BY 1, 2
                """, [.text(owner.id), .real(since.timeIntervalSince1970)]
            ).map { row in
                let day = Date(timeIntervalSince1970: (try row.double("day") ?? 0) * 86_400)
                return CustomerNoticeDay(
                    day: Self.dayFormatter.string(from: day), state: try row.requiredText("state"),
                    count: try row.requiredInt("notices"))
            }
        }
    }

    private static var dayFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }
}
