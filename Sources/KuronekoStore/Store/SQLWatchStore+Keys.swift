import Foundation
import Kuroneko

/// API keys, and the setting that opens the API without them.
extension SQLWatchStore {
    public func createKey(name: String, keyHash: Data, calendarHash: Data, now: Date) async throws -> APIKeyRecord {
        do {
            let id = try await database.write { connection in
                let rows = try connection.run(
                    "INSERT INTO api_keys (name, key_hash, calendar_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                    [.text(name), .blob(keyHash), .blob(calendarHash), .real(now.timeIntervalSince1970)])
                guard let row = rows.first else {
                    throw StoreError(code: 0, message: "the new key's id was not returned")
                }
                let id = Int64(try row.requiredInt("id"))
                // The key's own list, as migration 19 made one for every key before: today's admins are its admins.
                try connection.run(
                    "INSERT INTO lists (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    [.text(WatchOwner.key(id).id), .text(name), .real(now.timeIntervalSince1970)])
                try connection.run(
                    """
                    INSERT INTO members (list_id, user_id, role, added_at)
                    SELECT ?, user_id, 'admin', ? FROM members WHERE list_id = 'local' AND role = 'admin'
                    ON CONFLICT (list_id, user_id) DO NOTHING
                    """, [.text(WatchOwner.key(id).id), .real(now.timeIntervalSince1970)])
                return id
            }
            return APIKeyRecord(
                id: id, name: name, keyHash: keyHash, calendarHash: calendarHash, createdAt: now, revokedAt: nil)
        } catch let error as StoreError where error.isUniqueViolation {
            throw WatchStoreError.duplicateKeyName(name)
        }
    }

    public func createKey(
        name: String, keyHash: Data, calendarHash: Data, now: Date, list: String, role: ListRole, madeBy: Int64?
    ) async throws -> APIKeyRecord {
        do {
            let id = try await database.write { connection in
                let rows = try connection.run(
                    """
                    INSERT INTO api_keys (name, key_hash, calendar_hash, created_at, list_id, role, made_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """,
                    [
                        .text(name), .blob(keyHash), .blob(calendarHash), .real(now.timeIntervalSince1970), .text(list),
                        .text(role.rawValue), madeBy.map(SQLValue.integer) ?? .null,
                    ])
                guard let row = rows.first else {
                    throw StoreError(code: 0, message: "the new key's id was not returned")
                }
                return Int64(try row.requiredInt("id"))
            }
            var record = APIKeyRecord(
                id: id, name: name, keyHash: keyHash, calendarHash: calendarHash, createdAt: now, revokedAt: nil)
            record.listID = list
            record.role = role
            return record
        } catch let error as StoreError where error.isUniqueViolation {
            throw WatchStoreError.duplicateKeyName(name)
        }
    }

    public func keysOpenedAt() async throws -> Date? {
        let rows = try await database.read { connection in
            try connection.run("SELECT value FROM settings WHERE name = 'keys_opened_at'")
        }
        guard let row = rows.first else { return nil }
        return Double(try row.requiredText("value")).map(Date.init(timeIntervalSince1970:))
    }

    public func openWithoutKeys(at: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO settings (name, value) VALUES ('keys_opened_at', ?)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, [.text(String(at.timeIntervalSince1970))])
        }
    }

    public func keys() async throws -> [APIKeyRecord] {
        let rows = try await database.read { connection in
            try connection.run(
                "SELECT id, name, key_hash, calendar_hash, created_at, revoked_at, list_id, role FROM api_keys ORDER BY id")
        }
        return try rows.map { row in
            var record = APIKeyRecord(
                id: Int64(try row.requiredInt("id")), name: try row.requiredText("name"),
                keyHash: try row.requiredData("key_hash"), calendarHash: try row.requiredData("calendar_hash"),
                createdAt: try row.requiredDate("created_at"), revokedAt: try row.date("revoked_at"))
            record.listID = try row.text("list_id")
            // A key whose role does not read is a viewer's: it can never do more than it was made for.
            record.role = try row.text("role").map { ListRole(rawValue: $0) ?? .viewer }
            return record
        }
    }

    public func revokeKey(id: Int64, now: Date) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                [.real(now.timeIntervalSince1970), .integer(id)])
            return connection.changes > 0
        }
    }

    public func revokeKey(_ nameOrID: String, now: Date) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE api_keys SET revoked_at = ? WHERE (name = ? OR id = ?) AND revoked_at IS NULL",
                [.real(now.timeIntervalSince1970), .text(nameOrID), .integer(Int64(nameOrID) ?? -1)])
            return connection.changes > 0
        }
    }
}
