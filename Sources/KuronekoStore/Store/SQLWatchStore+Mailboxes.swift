import Foundation
import Kuroneko

/// The mailboxes read for shipping mails: where each was read up to, and the mail a watch came from.
extension SQLWatchStore {
    public func mailboxProgress(_ name: String) async throws -> (uidValidity: UInt64, lastUID: UInt64)? {
        let rows = try await database.read { connection in
            try connection.run("SELECT uid_validity, last_uid FROM mailboxes WHERE name = ?", [.text(name)])
        }
        // A UIDVALIDITY is never 0 (RFC 9051): 0 is a mailbox that failed before it was ever read.
        guard let row = rows.first, try row.requiredInt("uid_validity") > 0 else { return nil }
        return (UInt64(max(0, try row.requiredInt("uid_validity"))), UInt64(max(0, try row.requiredInt("last_uid"))))
    }

    public func setMailboxProblem(_ name: String, problem: String?, at now: Date, notice: Data) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO mailboxes (name, uid_validity, last_uid, read_at) VALUES (?, 0, 0, ?)
                ON CONFLICT (name) DO NOTHING
                """, [.text(name), .real(now.timeIntervalSince1970)])
            // A conditional update, as for a carrier's page: the first to see the change says it.
            if let problem {
                try connection.run(
                    "UPDATE mailboxes SET failing_since = ?, problem = ? WHERE name = ? AND failing_since IS NULL",
                    [.real(now.timeIntervalSince1970), .text(String(problem.prefix(500))), .text(name)])
            } else {
                try connection.run(
                    "UPDATE mailboxes SET failing_since = NULL, problem = NULL WHERE name = ? AND failing_since IS NOT NULL",
                    [.text(name)])
            }
            guard connection.changes > 0 else { return false }
            try Self.queueOperatorNews(problem == nil ? .mailboxRestored : .mailboxFailing, notice: notice, at: now, on: connection)
            return true
        }
    }

    public func setMailboxProgress(_ name: String, uidValidity: UInt64, lastUID: UInt64, at now: Date) async throws {
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO mailboxes (name, uid_validity, last_uid, read_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET uid_validity = excluded.uid_validity, last_uid = excluded.last_uid,
                    read_at = excluded.read_at
                """,
                [
                    .text(name), .integer(Int64(clamping: uidValidity)), .integer(Int64(clamping: lastUID)),
                    .real(now.timeIntervalSince1970),
                ])
        }
    }

    public func mailboxMessageKnown(_ mailbox: String, messageID: String) async throws -> Bool {
        let key = String(messageID.prefix(500))
        return try await database.read { connection in
            try !connection.run(
                "SELECT 1 AS known FROM mailbox_messages WHERE mailbox = ? AND message_id = ?", [.text(mailbox), .text(key)]
            ).isEmpty
        }
    }

    public func rememberMailboxMessage(_ mailbox: String, messageID: String, at now: Date) async throws {
        let key = String(messageID.prefix(500))
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO mailbox_messages (mailbox, message_id, read_at) VALUES (?, ?, ?)
                ON CONFLICT (mailbox, message_id) DO NOTHING
                """, [.text(mailbox), .text(key), .real(now.timeIntervalSince1970)])
        }
    }

    public func forgetOldMailboxMessages(_ mailbox: String, keeping kept: Int) async throws {
        try await database.write { connection in
            try connection.run(
                """
                DELETE FROM mailbox_messages WHERE mailbox = ? AND message_id IN (
                    SELECT message_id FROM mailbox_messages WHERE mailbox = ? ORDER BY read_at DESC
                    LIMIT 1000000000 OFFSET ?)
                """, [.text(mailbox), .text(mailbox), .integer(Int64(kept))])
        }
    }

    public func setWatchSource(_ number: TrackingNumber, owner: WatchOwner, source: Data) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE watches SET source = ? WHERE number = ? AND owner = ?",
                [.text(String(decoding: source.prefix(4_000), as: UTF8.self)), .text(number.digits), .text(owner.id)])
        }
    }
}
