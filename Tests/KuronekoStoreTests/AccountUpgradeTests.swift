import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// A database of the version before accounts, upgraded, on both engines: every parcel, channel, setting and
/// mailbox stays where it was, today's list and each command-line key's become lists, and the first account
/// made is the admin of all of them, so nothing anyone saw before is out of its reach.
@Suite("Accounts: upgrading a database of today", .timeLimit(.minutes(5)))
struct AccountUpgradeTests {
    static let start = Date(timeIntervalSince1970: 1_796_000_000)

    private static func channel() -> NewChannel {
        NewChannel(
            kind: "ntfy", destination: Data(#"{"url":"https://ntfy.example/t"}"#.utf8), numbers: nil,
            kinds: [.changed], language: "ja", quietHours: nil)
    }

    @Test(arguments: StoreEngine.available)
    func upgraded(engine: StoreEngine) async throws {
        let made = try await engine.makeStore()
        let store = made.store
        // Today's data: the local list (two parcels, a channel, a mailbox read up to UID 40), a key made on the
        // command line with its own parcel, channel and notice settings, and a revoked key's leftover parcel.
        let key = try await store.createKey(
            name: "mama", keyHash: Data(repeating: 1, count: 32), calendarHash: Data(repeating: 2, count: 32), now: Self.start)
        let gone = try await store.createKey(
            name: "old", keyHash: Data(repeating: 3, count: 32), calendarHash: Data(repeating: 4, count: 32), now: Self.start)
        _ = try await store.revokeKey("old", now: Self.start)
        let numbers = try ["3277-5445-9830", "4912-3456-7891", "8123-4567-8900", "9123-4567-8904"].map(TrackingNumber.init(parsing:))
        for number in numbers[0...1] {
            _ = try await store.add(number, label: "家", owner: .local, webhook: nil, now: Self.start)
        }
        _ = try await store.add(numbers[2], label: "ママの", owner: .key(key.id), webhook: nil, now: Self.start)
        _ = try await store.add(numbers[3], label: "古い", owner: .key(gone.id), webhook: nil, now: Self.start)
        _ = try await store.addChannel(Self.channel(), owner: .local, now: Self.start)
        _ = try await store.addChannel(Self.channel(), owner: .key(key.id), now: Self.start)
        try await store.saveNoticeSettings(Data(#"{"shop":"ママの店"}"#.utf8), owner: .key(key.id), at: Self.start)
        try await store.setMailboxProgress("INBOX", uidValidity: 7, lastUID: 40, at: Self.start)

        // Back to schema 16: no accounts, lists, member channels or key roles.
        try made.write("DROP TABLE used_challenges", [[]])
        try made.write("DROP TABLE passkeys", [[]])
        try made.write("DROP TABLE morning_summaries", [[]])
        try made.write("DROP TABLE audit_log", [[]])
        try made.write("DROP TABLE invitations", [[]])
        try made.write("DROP TABLE sessions", [[]])
        try made.write("DROP TABLE members", [[]])
        try made.write("DROP TABLE users", [[]])
        try made.write("DROP TABLE lists", [[]])
        for column in ["list_id", "role", "made_by"] { try made.write("ALTER TABLE api_keys DROP COLUMN \(column)", [[]]) }
        for column in ["member_id", "device"] { try made.write("ALTER TABLE channels DROP COLUMN \(column)", [[]]) }
        switch engine {
        case .sqlite: try made.write("PRAGMA user_version = 16", [[]])
        case .postgres: try made.write("DELETE FROM kuroneko_schema WHERE version >= 17", [[]])
        }

        let upgraded = try made.another()
        let accounts = try #require(upgraded as? any AccountStore)
        let lists = try await accounts.lists()
        #expect(
            lists.map { [$0.id, $0.name, String($0.watches)] }.sorted { $0[0] < $1[0] }
                == [["key:\(key.id)", "mama", "1"], ["key:\(gone.id)", "old", "1"], ["local", "Kuroneko", "2"]])
        let first = try await accounts.createUser(name: "papa", displayName: "パパ", passwordHash: nil, at: Self.start)
        let memberships = try await accounts.memberships(ofUser: first.id)
        #expect(Set(memberships.map(\.listID)) == ["local", "key:\(key.id)", "key:\(gone.id)"])
        #expect(memberships.allSatisfy { $0.role == .admin })
        // Nothing lost, nothing moved: each list's parcels, channels and settings are where they were.
        let local = try await upgraded.watches(owner: .local, filter: .all, after: nil, limit: 10)
        #expect(Set(local.map(\.number)) == Set(numbers[0...1]))
        #expect(try await upgraded.watch(numbers[2], owner: .key(key.id))?.label == "ママの")
        #expect(try await upgraded.watch(numbers[3], owner: .key(gone.id))?.label == "古い")
        #expect(try await upgraded.channels(owner: .local).count == 1)
        #expect(try await upgraded.channels(owner: .key(key.id)).count == 1)
        #expect(try await upgraded.noticeSettingsJSON(owner: .key(key.id)) == Data(#"{"shop":"ママの店"}"#.utf8))
        #expect(try await upgraded.mailboxProgress("INBOX")?.lastUID == 40)
        // The key still reaches its own list, and only it.
        let active = try await upgraded.keys().filter { $0.revokedAt == nil }
        #expect(active.map(\.owner) == [.key(key.id)])

        // A key made on the command line after accounts exist is a list the admins reach too.
        let later = try await upgraded.createKey(
            name: "kenta", keyHash: Data(repeating: 5, count: 32), calendarHash: Data(repeating: 6, count: 32), now: Self.start)
        #expect(try await accounts.memberships(ofUser: first.id).contains { $0.listID == "key:\(later.id)" && $0.role == .admin })
        // A list made since: its admin only.
        let shop = try await accounts.createList(name: "店", admin: first.id, at: Self.start)
        #expect(shop.id.hasPrefix("list:") && shop.id.count == 21)
        #expect(try await accounts.members(ofList: shop.id).map(\.userName) == ["papa"])
    }
}
