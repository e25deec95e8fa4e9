import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// People, lists and sessions in the store, on both engines: the first account is the admin of today's list;
/// a session ends when idle, when old, when its member leaves the list or signs out everywhere; an invitation
/// is used once and not after it expires; the audit log is bounded.
@Suite("Accounts in the store", .timeLimit(.minutes(5)))
struct AccountStoreTests {
    static let start = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(arguments: StoreEngine.available)
    func accounts(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let accounts = try #require(store as? any AccountStore)
        let mama = try await accounts.createUser(name: "mama", displayName: "ママ", passwordHash: "scrypt$x", at: Self.start)
        let papa = try await accounts.createUser(name: "papa", displayName: "パパ", passwordHash: nil, at: Self.start)
        await #expect(throws: AccountStoreError.nameTaken("mama")) {
            _ = try await accounts.createUser(name: "mama", displayName: "別人", passwordHash: nil, at: Self.start)
        }
        #expect(try await accounts.memberships(ofUser: mama.id).map { [$0.listID, $0.role.rawValue] } == [["local", "admin"]])
        #expect(try await accounts.memberships(ofUser: papa.id).isEmpty, "only the first account takes today's list")
        #expect(try await accounts.user(named: "papa")?.displayName == "パパ")

        // An invitation: once, before it expires.
        let invitation = Data(repeating: 7, count: 32)
        try await accounts.createInvitation(
            tokenHash: invitation, list: "local", role: .staff, madeBy: mama.id, at: Self.start, expiresAt: Self.start + 3_600)
        let used = try await accounts.useInvitation(tokenHash: invitation, user: papa.id, at: Self.start + 60)
        #expect(used?.list == "local" && used?.role == .staff)
        #expect(try await accounts.useInvitation(tokenHash: invitation, user: mama.id, at: Self.start + 61) == nil)
        let late = Data(repeating: 8, count: 32)
        try await accounts.createInvitation(
            tokenHash: late, list: "local", role: .viewer, madeBy: mama.id, at: Self.start, expiresAt: Self.start + 10)
        #expect(try await accounts.useInvitation(tokenHash: late, user: papa.id, at: Self.start + 11) == nil)
        #expect(try await accounts.members(ofList: "local").map(\.userName) == ["mama", "papa"])

        // Sessions: idle, old, a member removed, everywhere.
        let token = Data(repeating: 1, count: 32)
        try await accounts.createSession(tokenHash: token, user: papa.id, list: "local", csrf: "c", at: Self.start)
        let found = try await accounts.session(tokenHash: token, at: Self.start + 100, idle: 1_000, longest: 10_000)
        #expect(found?.role == .staff && found?.csrf == "c" && found?.listID == "local")
        #expect(try await accounts.session(tokenHash: token, at: Self.start + 2_000, idle: 1_000, longest: 10_000) == nil)
        #expect(try await accounts.session(tokenHash: token, at: Self.start + 100, idle: 1_000, longest: 10_000) == nil,
            "an expired session is forgotten")
        try await accounts.createSession(tokenHash: token, user: papa.id, list: "local", csrf: "c", at: Self.start)
        #expect(try await accounts.removeMember(list: "local", user: papa.id))
        #expect(try await accounts.session(tokenHash: token, at: Self.start + 1, idle: 1_000, longest: 10_000) == nil)
        let other = Data(repeating: 2, count: 32)
        try await accounts.createSession(tokenHash: other, user: mama.id, list: "local", csrf: "d", at: Self.start)
        try await accounts.createSession(tokenHash: token, user: mama.id, list: "local", csrf: "e", at: Self.start)
        #expect(try await accounts.endSessions(ofUser: mama.id) == 2)
        #expect(try await accounts.session(tokenHash: other, at: Self.start + 1, idle: 1_000, longest: 10_000) == nil)
        await #expect(throws: AccountStoreError.noSuchList("elsewhere")) {
            try await accounts.setMember(list: "elsewhere", user: papa.id, role: .viewer, at: Self.start)
        }

        // Expired sessions and invitations are forgotten without being looked up.
        try await accounts.createSession(tokenHash: other, user: papa.id, list: "local", csrf: "f", at: Self.start)
        #expect(try await accounts.forgetExpired(
            idleBefore: Self.start + 1, madeBefore: Self.start, invitationsBefore: Self.start + 3_601) == 1 + 2)

        // The audit log: newest first, bounded by age and count.
        for index in 0..<5 {
            try await accounts.audit(
                list: "local", actor: "mama", action: "removed", detail: "number \(index)", at: Self.start + Double(index))
        }
        try await accounts.audit(list: "other", actor: "x", action: "added", detail: "", at: Self.start)
        #expect(try await accounts.auditLog(list: "local", before: nil, limit: 2).map(\.detail) == ["number 4", "number 3"])
        #expect(try await accounts.forgetAudit(olderThan: Self.start + 1, keepPerList: 3) == 2 + 1)
        #expect(try await accounts.auditLog(list: "local", before: nil, limit: 10).map(\.detail) == ["number 4", "number 3", "number 2"])
    }
}
