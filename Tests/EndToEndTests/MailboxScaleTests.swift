import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

/// `serve --mailbox` against Dovecot at the sizes and changes real mailboxes have: a folder of 60,000 messages,
/// and a folder numbered afresh (a new UIDVALIDITY), once and then again and again.
@Suite("the server's mailbox at scale", .serialized, .timeLimit(.minutes(25)))
struct MailboxScaleTests {
    typealias IMAPServer = MailboxTests.IMAPServer

    static func watches(_ server: ServerProcess) async throws -> [JSON] {
        try JSON(data: try await SocketClient(port: server.port).get("/v1/watches?limit=100").body)["watches"]?.elements ?? []
    }

    @Test(
        "a folder of 60,000 messages is read to its end; a shipping mail appended after it is watched, reading that one alone",
        .enabled(if: MailboxTests.dovecot || MailboxTests.required, "Dovecot is not installed (apt-get install dovecot-imapd)"))
    func sixtyThousand() async throws {
        try #require(MailboxTests.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        try await imap.fill(60_000, "ordinary/member.eml")
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let server = try await MailboxTests.serve(imap, database: database, more: ["--mailbox-every", "2"])
        defer { server.terminate() }
        // Read to its end is what is checked, not how fast (bench/ measures that): beside a from-scratch build
        // on two cores it took 290-372 s, and over 600 s with more work beside it.
        let read = try await eventually(within: .seconds(1_200)) {
            try await MailboxTests.metric("kuroneko_mailbox_messages_read_total", of: server) ?? 0 >= 60_000
        }
        #expect(read, "\(server.logSoFar.suffix(1_500))")
        #expect(!server.logSoFar.contains("could not be read"), "\(server.logSoFar.suffix(1_500))")
        #expect(try await Self.watches(server).isEmpty, "the ordinary mails made parcels")
        // A new mail after them: found at a later poll, which reads it alone, not the folder again (how soon is
        // bench/mailbox.sh's).
        try await imap.append("amazon-shipped.eml")
        #expect(try await eventually { try await Self.watches(server).count == 1 })
        #expect(try await MailboxTests.metric("kuroneko_mailbox_messages_read_total", of: server) == 60_001)
    }

    @Test(
        "a new UIDVALIDITY reads the folder again without bringing back a watch the user removed; a UIDVALIDITY changing again reads on, without a loop",
        .enabled(if: MailboxTests.dovecot || MailboxTests.required, "Dovecot is not installed (apt-get install dovecot-imapd)"))
    func renumbered() async throws {
        try #require(MailboxTests.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        try await imap.append("amazon-shipped.eml")
        try await imap.append("traps.eml")
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let server = try await MailboxTests.serve(imap, database: database)
        defer { server.terminate() }
        let api = SocketClient(port: server.port)
        #expect(try await eventually { try await Self.watches(server).count == 1 })
        let number = try #require(try await Self.watches(server).first?["number"]?.string)
        #expect(try await api.send("DELETE", "/v1/watches/\(number)", headers: [:], body: Data()).status == 204)

        // Numbered afresh: the folder is read again, and the removed watch stays removed.
        try await imap.renumber()
        #expect(await server.waitForLog("mailbox UIDVALIDITY changed; the folder is read again"), "\(server.logSoFar.suffix(800))")
        #expect(try await eventually { try await MailboxTests.metric("kuroneko_mailbox_messages_read_total", of: server) ?? 0 >= 4 })
        #expect(try await Self.watches(server).isEmpty, "a watch the user removed came back")

        // Numbered afresh again within the hour (a server that renumbers at every session): read on, no loop.
        try await imap.renumber()
        #expect(await server.waitForLog("mailbox UIDVALIDITY changed again within the hour"), "\(server.logSoFar.suffix(800))")
        try await imap.append("yamato-notice.eml")
        #expect(try await eventually { try await Self.watches(server).count == 1 }, "\(server.logSoFar.suffix(800))")
        let polls = try await MailboxTests.metric("kuroneko_mailbox_polls_total", of: server) ?? 0
        #expect(try await eventually { try await MailboxTests.metric("kuroneko_mailbox_polls_total", of: server) ?? 0 >= polls + 3 })
        let read = try await MailboxTests.metric("kuroneko_mailbox_messages_read_total", of: server) ?? 0
        #expect(read <= 6, "\(read) messages read: the folder was read again and again")
        #expect(try await Self.watches(server).isEmpty == false)
    }
}
