import Foundation
import Kuroneko

/// The outbox: claiming due deliveries, recording attempts, ending a subscription its receiver refused.
extension SQLWatchStore {
    public func claimDeliveries(at now: Date, limit: Int, leaseUntil: Date, excludingWatches busy: Set<Int64>)
        async throws -> [PendingDelivery]
    {
        let busyClause =
            busy.isEmpty
            ? "" : " AND c.watch_id NOT IN (" + Array(repeating: "?", count: busy.count).joined(separator: ", ") + ")"
        let rows = try await database.write { connection in
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
    ) async throws {
        try await recordAttempt(
            in: ("outbox", "delivery_attempts"), outboxID, at: at, status: status, error: error,
            durationMilliseconds: durationMilliseconds, delivered: delivered, retryAt: retryAt)
    }

    /// One attempt of an outbox row (the webhooks' or the channels'), and the row's next state: delivered,
    /// given up (no `retryAt`) or pending until `retryAt`.
    func recordAttempt(
        in tables: (outbox: String, attempts: String), _ outboxID: Int64, at: Date, status: Int?, error: String?,
        durationMilliseconds: Double, delivered: Bool, retryAt: Date?
    ) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "INSERT INTO \(tables.attempts) (outbox_id, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?)",
                [
                    .integer(outboxID), .real(at.timeIntervalSince1970), status.map { .integer(Int64($0)) } ?? .null,
                    error.map(SQLValue.text) ?? .null, .real(durationMilliseconds),
                ])
            let state = delivered ? "delivered" : retryAt == nil ? "failed" : "pending"
            try connection.run(
                """
                UPDATE \(tables.outbox) SET attempts = attempts + 1, state = ?, next_attempt_at = ?, finished_at = ?
                WHERE id = ?
                """,
                [
                    .text(state), .real((retryAt ?? at).timeIntervalSince1970),
                    state == "pending" ? .null : .real(at.timeIntervalSince1970), .integer(outboxID),
                ])
        }
    }

    public func endSubscription(ofDelivery outboxID: Int64, at: Date, reason: String) async throws {
        _ = try await database.write { connection in
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
}
