import Foundation
import Kuroneko

extension SQLWatchStore: AccountStore {
    static func user(from row: SQLRow) throws -> UserRecord {
        UserRecord(
            id: Int64(try row.requiredInt("id")), name: try row.requiredText("name"),
            displayName: try row.requiredText("display_name"), passwordHash: try row.text("password_hash"),
            createdAt: try row.requiredDate("created_at"), removedAt: try row.date("removed_at"))
    }

    static func membership(from row: SQLRow) throws -> Membership? {
        guard let role = ListRole(rawValue: try row.requiredText("role")) else { return nil }
        let userName = try row.requiredText("user_name")
        let display = try row.text("user_display_name") ?? ""
        return Membership(
            listID: try row.requiredText("list_id"), listName: try row.requiredText("list_name"),
            userID: Int64(try row.requiredInt("user_id")), userName: userName, role: role,
            userDisplayName: display.isEmpty ? userName : display)
    }

    static var membershipColumns: String {
        """
        SELECT m.list_id, l.name AS list_name, m.user_id, u.name AS user_name, u.display_name AS user_display_name, m.role
        FROM members m JOIN lists l ON l.id = m.list_id JOIN users u ON u.id = m.user_id
        """
    }

    public func createUser(name: String, displayName: String, passwordHash: String?, at: Date) async throws -> UserRecord {
        try await database.write { connection in
            if try !connection.run("SELECT id FROM users WHERE name = ?", [.text(name)]).isEmpty {
                throw AccountStoreError.nameTaken(name)
            }
            let first = try connection.run("SELECT COUNT(*) AS users FROM users").first?.requiredInt("users") == 0
            let row = try connection.run(
                """
                INSERT INTO users (name, display_name, password_hash, created_at) VALUES (?, ?, ?, ?)
                RETURNING id, name, display_name, password_hash, created_at, removed_at
                """,
                [.text(name), .text(displayName), passwordHash.map(SQLValue.text) ?? .null, .real(at.timeIntervalSince1970)])
            let user = try Self.user(from: try row.first.orThrow())
            if first {
                try connection.run(
                    "INSERT INTO members (list_id, user_id, role, added_at) SELECT id, ?, 'admin', ? FROM lists",
                    [.integer(user.id), .real(at.timeIntervalSince1970)])
            }
            return user
        }
    }

    public func lists() async throws -> [ListRecord] {
        try await database.read { connection in
            try connection.run(
                """
                SELECT l.id, l.name, l.created_at,
                    (SELECT COUNT(*) FROM watches w WHERE w.owner = l.id) AS watches,
                    (SELECT COUNT(*) FROM members m WHERE m.list_id = l.id) AS members
                FROM lists l ORDER BY l.name, l.id
                """
            ).map(Self.list(from:))
        }
    }

    static func list(from row: SQLRow) throws -> ListRecord {
        ListRecord(
            id: try row.requiredText("id"), name: try row.requiredText("name"), createdAt: try row.requiredDate("created_at"),
            watches: try row.int("watches") ?? 0, members: try row.int("members") ?? 0)
    }

    public func createList(name: String, admin: Int64?, at: Date) async throws -> ListRecord {
        let id = "list:" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        return try await database.write { connection in
            try connection.run(
                "INSERT INTO lists (id, name, created_at) VALUES (?, ?, ?)",
                [.text(id), .text(name), .real(at.timeIntervalSince1970)])
            if let admin {
                try connection.run(
                    "INSERT INTO members (list_id, user_id, role, added_at) VALUES (?, ?, 'admin', ?)",
                    [.text(id), .integer(admin), .real(at.timeIntervalSince1970)])
            }
            return ListRecord(id: id, name: name, createdAt: at, watches: 0, members: admin == nil ? 0 : 1)
        }
    }

    public func user(named name: String) async throws -> UserRecord? {
        try await database.read { connection in
            try connection.run(
                "SELECT id, name, display_name, password_hash, created_at, removed_at FROM users WHERE name = ?",
                [.text(name)]
            ).first.map(Self.user(from:))
        }
    }

    public func user(id: Int64) async throws -> UserRecord? {
        try await database.read { connection in
            try connection.run(
                "SELECT id, name, display_name, password_hash, created_at, removed_at FROM users WHERE id = ?", [.integer(id)]
            ).first.map(Self.user(from:))
        }
    }

    public func hasAccounts() async throws -> Bool {
        try await database.read { connection in
            try !connection.run("SELECT id FROM users WHERE removed_at IS NULL LIMIT 1").isEmpty
        }
    }

    public func memberships(ofUser id: Int64) async throws -> [Membership] {
        try await database.read { connection in
            try connection.run(Self.membershipColumns + " WHERE m.user_id = ? ORDER BY l.name, m.list_id", [.integer(id)])
                .compactMap(Self.membership(from:))
        }
    }

    public func members(ofList id: String) async throws -> [Membership] {
        try await database.read { connection in
            try connection.run(Self.membershipColumns + " WHERE m.list_id = ? ORDER BY u.name", [.text(id)])
                .compactMap(Self.membership(from:))
        }
    }

    public func setMember(list: String, user: Int64, role: ListRole, at: Date) async throws {
        _ = try await database.write { connection in
            guard try !connection.run("SELECT id FROM lists WHERE id = ?", [.text(list)]).isEmpty else {
                throw AccountStoreError.noSuchList(list)
            }
            try connection.run(
                """
                INSERT INTO members (list_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (list_id, user_id) DO UPDATE SET role = excluded.role
                """, [.text(list), .integer(user), .text(role.rawValue), .real(at.timeIntervalSince1970)])
        }
    }

    public func removeMember(list: String, user: Int64) async throws -> Bool {
        try await database.write { connection in
            try connection.run("DELETE FROM members WHERE list_id = ? AND user_id = ?", [.text(list), .integer(user)])
            let removed = connection.changes > 0
            try connection.run("DELETE FROM sessions WHERE list_id = ? AND user_id = ?", [.text(list), .integer(user)])
            // Their own phones hear the list no more (what was queued for them goes with them).
            try connection.run("DELETE FROM channels WHERE owner = ? AND member_id = ?", [.text(list), .integer(user)])
            try connection.run(
                "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE list_id = ? AND made_by = ?",
                [.real(Date().timeIntervalSince1970), .text(list), .integer(user)])
            return removed
        }
    }

    public func createSession(tokenHash: Data, user: Int64, list: String, csrf: String, at: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO sessions (token_hash, user_id, list_id, csrf, created_at, last_used_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(tokenHash), .integer(user), .text(list), .text(csrf), .real(at.timeIntervalSince1970),
                    .real(at.timeIntervalSince1970),
                ])
        }
    }

    public func session(tokenHash: Data, at: Date, idle: TimeInterval, longest: TimeInterval) async throws
        -> SessionRecord?
    {
        try await database.write { connection in
            guard
                let row = try connection.run(
                    """
                    SELECT s.user_id, u.name AS user_name, s.list_id, s.csrf, s.created_at, s.last_used_at, m.role
                    FROM sessions s
                    JOIN members m ON m.list_id = s.list_id AND m.user_id = s.user_id
                    JOIN users u ON u.id = s.user_id AND u.removed_at IS NULL
                    WHERE s.token_hash = ?
                    """, [.blob(tokenHash)]
                ).first
            else { return nil }
            let created = try row.requiredDate("created_at")
            let used = try row.requiredDate("last_used_at")
            guard at.timeIntervalSince(used) < idle, at.timeIntervalSince(created) < longest,
                let role = ListRole(rawValue: try row.requiredText("role"))
            else {
                try connection.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
                return nil
            }
            // Written at most once a minute: a page's every request does not write.
            if at.timeIntervalSince(used) >= 60 {
                try connection.run(
                    "UPDATE sessions SET last_used_at = ? WHERE token_hash = ?",
                    [.real(at.timeIntervalSince1970), .blob(tokenHash)])
            }
            return SessionRecord(
                userID: Int64(try row.requiredInt("user_id")), userName: try row.requiredText("user_name"), listID: try row.requiredText("list_id"), role: role,
                csrf: try row.requiredText("csrf"), createdAt: created, lastUsedAt: max(used, at))
        }
    }

    public func endSession(tokenHash: Data) async throws {
        _ = try await database.write { connection in
            try connection.run("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
        }
    }

    public func endSessions(ofUser id: Int64) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM sessions WHERE user_id = ?", [.integer(id)])
            return connection.changes
        }
    }

    public func createInvitation(
        tokenHash: Data, list: String, role: ListRole, madeBy: Int64?, at: Date, expiresAt: Date
    ) async throws {
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO invitations (token_hash, list_id, role, made_by, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .blob(tokenHash), .text(list), .text(role.rawValue), madeBy.map(SQLValue.integer) ?? .null,
                    .real(at.timeIntervalSince1970), .real(expiresAt.timeIntervalSince1970),
                ])
        }
    }

    public func invitation(tokenHash: Data, at: Date) async throws -> (list: String, role: ListRole)? {
        try await database.read { connection in
            guard
                let row = try connection.run(
                    "SELECT list_id, role FROM invitations WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
                    [.blob(tokenHash), .real(at.timeIntervalSince1970)]
                ).first,
                let role = ListRole(rawValue: try row.requiredText("role"))
            else { return nil }
            return (try row.requiredText("list_id"), role)
        }
    }

    public func useInvitation(tokenHash: Data, user: Int64, at: Date) async throws -> (list: String, role: ListRole)? {
        try await database.write { connection in
            // One statement takes it: of two uses at once, one finds it still unused.
            try connection.run(
                """
                UPDATE invitations SET used_at = ?, used_by = ?
                WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                """,
                [.real(at.timeIntervalSince1970), .integer(user), .blob(tokenHash), .real(at.timeIntervalSince1970)])
            guard connection.changes == 1,
                let row = try connection.run(
                    "SELECT list_id, role FROM invitations WHERE token_hash = ?", [.blob(tokenHash)]
                ).first,
                let role = ListRole(rawValue: try row.requiredText("role"))
            else { return nil }
            let list = try row.requiredText("list_id")
            // An invitation adds a list or raises a role, never lowers one: an admin who opens a viewer's link
            // stays an admin.
            try connection.run(
                """
                INSERT INTO members (list_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (list_id, user_id) DO UPDATE SET role = CASE
                    WHEN members.role = 'admin' OR excluded.role = 'admin' THEN 'admin'
                    WHEN members.role = 'staff' OR excluded.role = 'staff' THEN 'staff'
                    ELSE 'viewer' END
                """, [.text(list), .integer(user), .text(role.rawValue), .real(at.timeIntervalSince1970)])
            let kept = try connection.run(
                "SELECT role FROM members WHERE list_id = ? AND user_id = ?", [.text(list), .integer(user)]
            ).first.flatMap { ListRole(rawValue: try $0.requiredText("role")) }
            return (list, kept ?? role)
        }
    }

    public func audit(list: String, actor: String, action: String, detail: String, at: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "INSERT INTO audit_log (list_id, at, actor, action, detail) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(list), .real(at.timeIntervalSince1970), .text(String(actor.prefix(100))),
                    .text(String(action.prefix(40))), .text(String(detail.prefix(1_000))),
                ])
        }
    }

    public func auditLog(list: String, before: Date?, limit: Int) async throws -> [AuditEntry] {
        try await database.read { connection in
            try connection.run(
                """
                SELECT at, actor, action, detail FROM audit_log WHERE list_id = ? AND at < ?
                ORDER BY at DESC, id DESC LIMIT ?
                """,
                [
                    .text(list), .real((before ?? .distantFuture).timeIntervalSince1970),
                    .integer(Int64(max(1, min(limit, 10_000)))),
                ]
            ).map { row in
                AuditEntry(
                    at: try row.requiredDate("at"), actor: try row.requiredText("actor"),
                    action: try row.requiredText("action"), detail: try row.requiredText("detail"))
            }
        }
    }

    public func forgetExpired(idleBefore: Date, madeBefore: Date, invitationsBefore: Date) async throws -> Int {
        try await database.write { connection in
            try connection.run(
                "DELETE FROM sessions WHERE last_used_at < ? OR created_at < ?",
                [.real(idleBefore.timeIntervalSince1970), .real(madeBefore.timeIntervalSince1970)])
            var forgotten = connection.changes
            try connection.run(
                "DELETE FROM invitations WHERE expires_at < ?", [.real(invitationsBefore.timeIntervalSince1970)])
            forgotten += connection.changes
            return forgotten
        }
    }

    public func forgetAudit(olderThan: Date, keepPerList: Int) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM audit_log WHERE at < ?", [.real(olderThan.timeIntervalSince1970)])
            var forgotten = connection.changes
            try connection.run(
                """
                DELETE FROM audit_log WHERE id IN (
                    SELECT id FROM (
                        SELECT id, ROW_NUMBER() OVER (PARTITION BY list_id ORDER BY at DESC, id DESC) AS place
                        FROM audit_log
                    ) ranked WHERE place > ?
                )
                """, [.integer(Int64(keepPerList))])
            forgotten += connection.changes
            return forgotten
        }
    }
}

extension Optional {
    func orThrow() throws -> Wrapped {
        guard let self else { throw AccountStoreError.noSuchUser("") }
        return self
    }
}
