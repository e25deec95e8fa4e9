import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoTestSupport
import Testing

/// What the store keeps of a mailbox read for shipping mails, on both engines: where it was read up to, and
/// whether it fails, told once to the operator's channels by whichever server sees it first.
@Suite("Mailboxes in the store", .timeLimit(.minutes(10)))
struct MailboxStoreTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)
    private static let name = "imaps://hanako@mail.example/INBOX"

    @Test(
        "a failing mailbox is queued once for the operator's channels, its end once; a mailbox that failed before its first read has no progress",
        arguments: StoreEngine.available)
    func failingOnce(engine: StoreEngine) async throws {
        let made = try await engine.makeStore()
        let store = made.store
        let other = try made.another()
        let settings = Data(#"{"url":"https://ntfy.example/ops"}"#.utf8)
        let operatorChannel = try await store.addChannel(
            NewChannel(kind: "ntfy", destination: settings, numbers: nil, kinds: [.pageChanged], language: "en",
                quietHours: nil), owner: .key(1), now: Self.now)
        let household = try await store.addChannel(
            NewChannel(kind: "ntfy", destination: settings, numbers: nil, kinds: AnnouncementKind.parcelKinds,
                language: "ja", quietHours: nil), owner: .key(2), now: Self.now)
        let failing = MailboxNotice(mailbox: Self.name, restored: false, problem: "login refused", at: Self.now).json()
        async let first = store.setMailboxProblem(Self.name, problem: "login refused", at: Self.now, notice: failing)
        async let second = other.setMailboxProblem(Self.name, problem: "login refused", at: Self.now, notice: failing)
        #expect(try await [first, second].filter { $0 }.count == 1)
        #expect(
            try await store.setMailboxProblem(Self.name, problem: "another problem", at: Self.now, notice: failing) == false,
            "a failing mailbox is said once, whatever its next problem")
        #expect(try await store.mailboxProgress(Self.name) == nil, "never read: no progress")

        let restored = MailboxNotice(mailbox: Self.name, restored: true, problem: nil, at: Self.now).json()
        #expect(try await other.setMailboxProblem(Self.name, problem: nil, at: Self.now, notice: restored))
        #expect(try await store.setMailboxProblem(Self.name, problem: nil, at: Self.now, notice: restored) == false)
        #expect(try await store.setMailboxProblem("imaps://x@y/INBOX", problem: nil, at: Self.now, notice: restored) == false)

        try await store.setMailboxProgress(Self.name, uidValidity: 7, lastUID: 42, at: Self.now)
        let progress = try #require(try await other.mailboxProgress(Self.name))
        #expect(progress.uidValidity == 7 && progress.lastUID == 42)
        #expect(try await store.setMailboxProblem(Self.name, problem: "TLS refused", at: Self.now, notice: failing))
        #expect(try await store.mailboxProgress(Self.name)?.lastUID == 42, "a failure keeps the progress")

        let backlog = try await store.channelBacklog(operatorChannel.id, limit: 10)
        #expect(backlog.map(\.kind) == [.mailboxFailing, .mailboxRestored, .mailboxFailing])
        #expect(MailboxNotice.decode(backlog[0].shipment)?.problem == "login refused")
        #expect(try await store.channelBacklog(household.id, limit: 10).isEmpty, "parcel channels do not hear it")
    }

    @Test("the operator's mailbox messages in both languages name the mailbox and the problem")
    func messages() {
        let failing = MailboxNotice(mailbox: Self.name, restored: false, problem: "the login was refused", at: Self.now)
        let english = Announcement(mailbox: failing, language: .english, publicURL: nil)
        #expect(english.kind == .mailboxFailing && english.urgent)
        #expect(english.title == "The mailbox cannot be read")
        #expect(english.body.contains(Self.name) && english.body.contains("the login was refused"))
        let japanese = Announcement(mailbox: failing, language: .japanese, publicURL: nil)
        #expect(japanese.title == "メールボックスを読めません" && japanese.body.contains("the login was refused"))
        let back = Announcement(
            mailbox: MailboxNotice(mailbox: Self.name, restored: true, problem: nil, at: Self.now), language: .japanese,
            publicURL: nil)
        #expect(back.kind == .mailboxRestored && !back.urgent && back.title == "メールボックスを再び読めています")
    }
}
