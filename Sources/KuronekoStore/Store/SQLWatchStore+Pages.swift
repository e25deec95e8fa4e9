import Foundation
import Kuroneko

/// When a carrier's page is not understood: the watches it leaves without news, the pages kept as evidence,
/// and the carrier's state every server shares, whose changes reach the operator's channels once.
extension SQLWatchStore {
    public func markPageRefused(_ numbers: [TrackingNumber], at now: Date) async throws -> Int {
        guard !numbers.isEmpty else { return 0 }
        let digits = numbers.prefix(100).map { SQLValue.text($0.digits) }
        return try await database.write { connection in
            try connection.run(
                "UPDATE watches SET page_refused_at = ? WHERE page_refused_at IS NULL AND active = 1 AND number IN ("
                    + Array(repeating: "?", count: digits.count).joined(separator: ", ") + ")",
                [.real(now.timeIntervalSince1970)] + digits)
            return connection.changes
        }
    }

    public func keepRefusedPage(_ page: NewRefusedPage, limits: RefusedPageLimits) async throws -> Int64? {
        try await database.write { connection in
            let hourAgo = page.receivedAt.timeIntervalSince1970 - 3_600
            let recent = try connection.run(
                "SELECT COUNT(*) AS n FROM refused_pages WHERE carrier = ? AND received_at > ?",
                [.text(page.carrier.rawValue), .real(hourAgo)])
            guard try (recent.first?.requiredInt("n") ?? 0) < limits.perCarrierPerHour else { return nil }
            let body = page.body.count <= limits.bytes ? page.body : Data()
            let inserted = try connection.run(
                """
                INSERT INTO refused_pages (carrier, reason, message, url, received_at, charset, numbers, redacted, size, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(page.carrier.rawValue), .text(page.reason), .text(String(page.message.prefix(1_000))),
                    .text(String(page.url.prefix(2_048))), .real(page.receivedAt.timeIntervalSince1970),
                    page.charset.map { .text(String($0.prefix(64))) } ?? .null, .integer(Int64(page.numbers)),
                    .integer(page.redacted ? 1 : 0), .integer(Int64(body.count)), .blob(body),
                ])
            guard let id = try inserted.first?.requiredInt("id") else {
                throw StoreError(code: 0, message: "the kept page's id was not returned")
            }
            // Newest first; everything past the count or the total size goes.
            let kept = try connection.run("SELECT id, size FROM refused_pages ORDER BY id DESC", [])
            var total = 0
            var drop: [SQLValue] = []
            for (index, row) in kept.enumerated() {
                total += try row.requiredInt("size")
                if index >= limits.count || total > limits.bytes { drop.append(.integer(Int64(try row.requiredInt("id")))) }
            }
            for chunk in stride(from: 0, to: drop.count, by: 100) {
                let ids = Array(drop[chunk..<min(drop.count, chunk + 100)])
                try connection.run(
                    "DELETE FROM refused_pages WHERE id IN (" + Array(repeating: "?", count: ids.count).joined(separator: ", ")
                        + ")", ids)
            }
            return Int64(id)
        }
    }

    public func refusedPages(limit: Int) async throws -> [RefusedPageRecord] {
        try await database.read { connection in
            try connection.run(
                """
                SELECT id, carrier, reason, message, url, received_at, charset, numbers, redacted, size
                FROM refused_pages ORDER BY id DESC LIMIT ?
                """, [.integer(Int64(max(1, limit)))])
        }.compactMap { try Self.refusedPage(from: $0, body: Data()) }
    }

    public func refusedPage(_ id: Int64) async throws -> RefusedPageRecord? {
        try await database.read { connection in
            try connection.run(
                """
                SELECT id, carrier, reason, message, url, received_at, charset, numbers, redacted, size, body
                FROM refused_pages WHERE id = ?
                """, [.integer(id)])
        }.first.flatMap { try Self.refusedPage(from: $0, body: try $0.requiredData("body")) }
    }

    private static func refusedPage(from row: SQLRow, body: Data) throws -> RefusedPageRecord? {
        guard let carrier = Carrier(rawValue: try row.requiredText("carrier")) else { return nil }
        let page = NewRefusedPage(
            carrier: carrier, reason: try row.requiredText("reason"), message: try row.requiredText("message"),
            url: try row.requiredText("url"), receivedAt: try row.requiredDate("received_at"),
            charset: try row.text("charset"), numbers: try row.requiredInt("numbers"),
            redacted: try row.requiredInt("redacted") == 1, body: body)
        return RefusedPageRecord(id: Int64(try row.requiredInt("id")), page: page, size: try row.requiredInt("size"))
    }

    public func setCarrierPageState(_ carrier: Carrier, changed: Bool, reason: String?, at now: Date, notice: Data)
        async throws -> Bool
    {
        try await database.write { connection in
            try connection.run(
                "INSERT INTO carrier_pages (carrier, updated_at) VALUES (?, ?) ON CONFLICT (carrier) DO NOTHING",
                [.text(carrier.rawValue), .real(now.timeIntervalSince1970)])
            // A conditional update: of several servers judging at once, one makes the change and says it.
            if changed {
                try connection.run(
                    """
                    UPDATE carrier_pages SET changed_since = ?, reason = ?, updated_at = ?
                    WHERE carrier = ? AND changed_since IS NULL
                    """,
                    [
                        .real(now.timeIntervalSince1970), reason.map { .text(String($0.prefix(500))) } ?? .null,
                        .real(now.timeIntervalSince1970), .text(carrier.rawValue),
                    ])
            } else {
                try connection.run(
                    """
                    UPDATE carrier_pages SET changed_since = NULL, reason = NULL, updated_at = ?
                    WHERE carrier = ? AND changed_since IS NOT NULL
                    """, [.real(now.timeIntervalSince1970), .text(carrier.rawValue)])
            }
            guard connection.changes > 0 else { return false }
            try Self.queueOperatorNews(changed ? .pageChanged : .pageRestored, notice: notice, at: now, on: connection)
            return true
        }
    }

    /// Queues the operator's news (`notice`, JSON) for every channel that hears it, whatever its owner.
    static func queueOperatorNews(
        _ kind: AnnouncementKind, notice: Data, at now: Date, on connection: Database.Connection
    ) throws {
        let channels = try connection.run(
            Self.channelColumns + " WHERE ch.ended_at IS NULL AND ch.kinds LIKE ?",
            [.text("%" + AnnouncementKind.pageChanged.rawValue + "%")]
        ).map(Self.channel(from:)).filter { $0.hears(kind, for: nil) }
        for channel in channels {
            try connection.run(
                """
                INSERT INTO channel_outbox (channel_id, watch_id, kind, label, shipment_json, created_at, next_attempt_at)
                VALUES (?, NULL, ?, NULL, ?, ?, ?)
                """,
                [
                    .integer(channel.id), .text(kind.rawValue), .blob(notice), .real(now.timeIntervalSince1970),
                    .real(now.timeIntervalSince1970),
                ])
        }
    }
}
