import Foundation
import Kuroneko

/// The mailboxes read for shipping mails: where each was read up to, and the mail a watch came from.
extension SQLWatchStore {
    public func mailboxProgress(_ name: String) async throws -> (uidValidity: UInt64, lastUID: UInt64)? {
        let rows = try await database.read { connection in
            try connection.run("SELECT uid_validity, last_uid FROM mailboxes WHERE name = ?", [.text(name)])
        }
        guard let row = rows.first else { return nil }
        return (UInt64(max(0, try row.requiredInt("uid_validity"))), UInt64(max(0, try row.requiredInt("last_uid"))))
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

    public func setWatchSource(_ number: TrackingNumber, owner: WatchOwner, source: Data) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE watches SET source = ? WHERE number = ? AND owner = ?",
                [.text(String(decoding: source.prefix(4_000), as: UTF8.self)), .text(number.digits), .text(owner.id)])
        }
    }
}
