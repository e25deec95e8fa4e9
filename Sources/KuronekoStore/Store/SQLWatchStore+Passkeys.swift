import Foundation
import Kuroneko

/// Passkeys: each person's, at most a few each; a sign-in's counter recorded only if it grew, atomically.
extension SQLWatchStore {
    static func passkey(from row: SQLRow) throws -> PasskeyRecord {
        PasskeyRecord(
            credentialID: try row.requiredData("credential_id"), userID: Int64(try row.requiredInt("user_id")),
            publicKey: try row.requiredData("public_key"), signCount: UInt32(clamping: try row.requiredInt("sign_count")),
            name: try row.requiredText("name"), createdAt: try row.requiredDate("created_at"),
            lastUsedAt: try row.date("last_used_at"))
    }

    static var passkeyColumns: String { "SELECT credential_id, user_id, public_key, sign_count, name, created_at, last_used_at FROM passkeys" }

    public func addPasskey(_ passkey: PasskeyRecord, limit: Int) async throws -> Bool {
        try await database.write { connection in
            let count = try connection.run(
                "SELECT COUNT(*) AS passkeys FROM passkeys WHERE user_id = ?", [.integer(passkey.userID)]
            ).first?.requiredInt("passkeys") ?? 0
            guard count < limit,
                try connection.run("SELECT user_id FROM passkeys WHERE credential_id = ?", [.blob(passkey.credentialID)]).isEmpty
            else { return false }
            try connection.run(
                """
                INSERT INTO passkeys (credential_id, user_id, public_key, sign_count, name, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(passkey.credentialID), .integer(passkey.userID), .blob(passkey.publicKey),
                    .integer(Int64(passkey.signCount)), .text(passkey.name), .real(passkey.createdAt.timeIntervalSince1970),
                ])
            return true
        }
    }

    public func passkey(credentialID: Data) async throws -> PasskeyRecord? {
        try await database.read { connection in
            try connection.run(Self.passkeyColumns + " WHERE credential_id = ?", [.blob(credentialID)]).first.map(Self.passkey(from:))
        }
    }

    public func passkeys(ofUser id: Int64) async throws -> [PasskeyRecord] {
        try await database.read { connection in
            try connection.run(Self.passkeyColumns + " WHERE user_id = ? ORDER BY created_at", [.integer(id)]).map(Self.passkey(from:))
        }
    }

    public func usePasskey(credentialID: Data, signCount: UInt32, at: Date) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE passkeys SET sign_count = ?, last_used_at = ?
                WHERE credential_id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))
                """,
                [
                    .integer(Int64(signCount)), .real(at.timeIntervalSince1970), .blob(credentialID), .integer(Int64(signCount)),
                    .integer(Int64(signCount)),
                ])
            return connection.changes > 0
        }
    }

    public func useChallenge(hash: Data, expiresAt: Date, now: Date) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM used_challenges WHERE expires_at < ?", [.real(now.timeIntervalSince1970)])
            try connection.run(
                "INSERT INTO used_challenges (challenge_hash, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.blob(hash), .real(expiresAt.timeIntervalSince1970)])
            return connection.changes > 0
        }
    }

    public func removePasskey(credentialID: Data, user: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM passkeys WHERE credential_id = ? AND user_id = ?", [.blob(credentialID), .integer(user)])
            return connection.changes > 0
        }
    }
}
