import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoProcess
import KuronekoTestSupport
import Testing

/// `serve --mailbox` against a real IMAP server (Debian's Dovecot, started by scripts/test-imap on a port of its
/// own with a local certificate authority): mail appended is found and watched once, across a restart, with its
/// flags left as they were; a wrong password is said once, shown by /readyz and told once to the operator's
/// channel, and so is the mailbox read again.
@Suite("the server's mailbox", .serialized, .timeLimit(.minutes(10)))
struct MailboxTests {
    static let script = Fixtures.packageDirectory.appendingPathComponent("scripts/test-imap")
    static let corpus = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/mail")
    static var dovecot: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/dovecot") }
    static var required: Bool { ProcessInfo.processInfo.environment["KURONEKO_REQUIRE_IMAP"] == "1" }

    /// A running test IMAP server, stopped and removed by ``stop()``.
    struct IMAPServer {
        let directory: String

        static func start() async throws -> IMAPServer {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imap-\(UUID().uuidString)").path
            let outcome = try await KuronekoBinary.run(["start", directory], executable: script)
            guard outcome.status == 0 else {
                throw IMAPServerError(description: "scripts/test-imap start failed: \(outcome.standardError)")
            }
            return IMAPServer(directory: directory)
        }

        var port: String { (try? String(contentsOfFile: directory + "/port", encoding: .utf8)) ?? "" }
        var url: String { "imaps://hanako@127.0.0.1:\(port)/INBOX" }

        func append(_ name: String, folder: String = "INBOX") async throws {
            let outcome = try await KuronekoBinary.run(
                ["append", directory, corpus.appendingPathComponent(name).path, folder], executable: script)
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }

        /// `count` copies of a mail of the corpus (`ordinary/…` for the ordinary ones), written into the Maildir.
        func fill(_ count: Int, _ name: String) async throws {
            let outcome = try await KuronekoBinary.run(
                ["fill", directory, String(count), corpus.appendingPathComponent(name).path], executable: script)
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }

        /// INBOX numbered afresh under a new UIDVALIDITY.
        func renumber() async throws {
            let outcome = try await KuronekoBinary.run(["renumber", directory], executable: script)
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }

        /// Stops Dovecot on a thread of its own, returning at once (for `defer`).
        func stop() {
            // `scripts/test-imap stop` is started here (a spawn, which does not wait) and reaped on a thread of its
            // own: once started it finishes even when this test process ends first, so no Dovecot is left running.
            guard let nothing = try? FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null")) else { return }
            defer { try? nothing.close() }
            if let child = try? ChildProcess(
                script.path, ["stop", directory], input: nothing.fileDescriptor, output: nothing.fileDescriptor,
                error: nothing.fileDescriptor)
            {
                Thread { _ = child.wait() }.start()
            }
        }

        /// What `body` finds in a session of the folder, on a thread of its own (the session blocks).
        func ask<T: Sendable>(folder: String = "INBOX", _ body: @escaping @Sendable (IMAPSession) throws -> T) async throws -> T {
            let directory = self.directory
            let port = self.port
            return try await onOwnThread {
                Result { try body(try IMAPServer.session(directory: directory, port: port, folder: folder)) }
            }.get()
        }

        static func session(directory: String, port: String, folder: String) throws -> IMAPSession {
            var settings = try MailboxSettings(
                url: "imaps://hanako@127.0.0.1:\(port)/\(folder)",
                password: try String(contentsOfFile: directory + "/password", encoding: .utf8))
            settings.caFile = directory + "/ca.pem"
            return try IMAPSession(settings)
        }
    }

    struct IMAPServerError: Error, CustomStringConvertible {
        let description: String
    }

    static func serve(
        _ imap: IMAPServer, database: String, passwordFile: String? = nil, url: String? = nil, more: [String] = []
    ) async throws -> ServerProcess {
        try await ServerProcess(
            [
                "serve", "--demo", "--port", "0", "--db", database, "--mailbox", url ?? imap.url, "--mailbox-password-file",
                passwordFile ?? imap.directory + "/password", "--ca-file", imap.directory + "/ca.pem", "--mailbox-every", "1",
            ] + more)
    }

    static func metric(_ name: String, of server: ServerProcess) async throws -> Int? {
        let text = String(decoding: try await SocketClient(port: server.port).get("/metrics").body, as: UTF8.self)
        // Prometheus's text writes a gauge as a decimal (`1.0`), a counter as an integer.
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            .map { Int($0) }
    }

    @Test(
        "mail appended is watched once with its source; after a restart only the new message is read; flags are left as they were",
        .enabled(if: dovecot || required, "Dovecot is not installed (apt-get install dovecot-imapd); scripts/test installs it"))
    func readOnce() async throws {
        try #require(Self.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        for name in ["amazon-shipped.eml", "apple-two-parcels.eml", "traps.eml"] { try await imap.append(name) }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let first = try await Self.serve(imap, database: database)
        let api = SocketClient(port: first.port)
        #expect(await first.waitForLog("/INBOX messages=3 uids=1-3 watched=3"), "\(first.logSoFar.suffix(800))")
        let watches = try JSON(data: try await api.get("/v1/watches").body)["watches"]?.elements ?? []
        #expect(Set(watches.compactMap { $0["label"]?.string }) == ["Amazon.co.jp 503-1234567-7654321", "Apple Store W1234567890"])
        let amazon = try #require(watches.first { $0["label"]?.string?.hasPrefix("Amazon") == true })
        #expect(amazon["source"]?["from"]?.string == "shipment-tracking@amazon.co.jp")
        #expect(amazon["source"]?["subject"]?.string == "Amazon.co.jp でのご注文 1 点が発送されました")
        #expect(amazon["source"]?["mailbox"]?.string == imap.url)
        let ready = try JSON(data: try await api.get("/readyz").body)
        #expect(ready["mailbox"]?["state"]?.string == "ok")
        _ = await first.stop()
        // Nothing was marked: the three are still unseen.
        #expect(try await imap.ask { try $0.unseen([1, 2, 3]) } == [1, 2, 3])

        try await imap.append("yamato-notice.eml")
        let second = try await Self.serve(imap, database: database)
        defer { second.terminate() }
        #expect(await second.waitForLog("/INBOX messages=1 uids=4 watched=1"), "\(second.logSoFar.suffix(800))")
        #expect(
            try await eventually {
                try JSON(data: try await SocketClient(port: second.port).get("/v1/watches").body)["watches"]?.elements.count == 4
            })
        // Polls go on finding nothing new.
        #expect(try await eventually { try await Self.metric("kuroneko_mailbox_polls_total", of: second) ?? 0 >= 3 })
        #expect(!second.logSoFar.contains("uids=1"), "a message read before was read again")
        #expect(try await Self.metric("kuroneko_mailbox_messages_read_total", of: second) == 1)
    }

    @Test(
        "a folder named in Japanese (通販) is read: its name goes to the server in modified UTF-7",
        .enabled(if: dovecot || required, "Dovecot is not installed (apt-get install dovecot-imapd); scripts/test installs it"))
    func japaneseFolder() async throws {
        try #require(Self.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        try await imap.append("traps.eml")
        try await imap.append("amazon-shipped.eml", folder: "通販")
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let url = "imaps://hanako@127.0.0.1:\(imap.port)/通販"
        let server = try await Self.serve(imap, database: database, url: url)
        defer { server.terminate() }
        #expect(await server.waitForLog("/通販 messages=1 uids=1 watched=1"), "\(server.logSoFar.suffix(800))")
        let watches = try JSON(data: try await SocketClient(port: server.port).get("/v1/watches").body)["watches"]?.elements ?? []
        #expect(watches.compactMap { $0["label"]?.string } == ["Amazon.co.jp 503-1234567-7654321"], "only the folder's mail")
        #expect(watches.first?["source"]?["mailbox"]?.string == url, "\(watches)")
    }

    @Test(
        "--mailbox-move-to: a shipping mail is moved once its parcel is watched, to a folder made for it; other mail stays",
        .enabled(if: dovecot || required, "Dovecot is not installed (apt-get install dovecot-imapd); scripts/test installs it"))
    func moveTo() async throws {
        try #require(Self.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        for name in ["amazon-shipped.eml", "traps.eml", "yodobashi-extreme.eml"] { try await imap.append(name) }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let server = try await Self.serve(imap, database: database, more: ["--mailbox-move-to", "処理済み"])
        defer { server.terminate() }
        #expect(await server.waitForLog("/INBOX messages=2 to=処理済み"), "\(server.logSoFar.suffix(800))")
        // The order confirmation with no number stays; the mail whose shop delivers itself is handled too.
        #expect(try await imap.ask { try $0.uids(after: 0) } == [2])
        #expect(try await imap.ask(folder: "処理済み") { try $0.uids(after: 0).count } == 2)
        // Polls go on, finding nothing new and moving nothing more.
        #expect(try await eventually { try await Self.metric("kuroneko_mailbox_polls_total", of: server) ?? 0 >= 3 })
        #expect(server.logSoFar.components(separatedBy: "moved").count - 1 == 1)
        #expect(try await Self.metric("kuroneko_mailbox_failing", of: server) == 0)
    }

    @Test(
        "a wrong password is said once in the log, named by /readyz, counted and told once to the operator's channel; the mailbox read again is told too",
        .enabled(if: dovecot || required, "Dovecot is not installed (apt-get install dovecot-imapd); scripts/test installs it"))
    func wrongPassword() async throws {
        try #require(Self.dovecot, "KURONEKO_REQUIRE_IMAP=1 and /usr/sbin/dovecot is missing")
        let imap = try await IMAPServer.start()
        defer { imap.stop() }
        let wrong = imap.directory + "/wrong"
        try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mailbox-\(UUID().uuidString).sqlite").path
        let receiver = try FakeUpstream(concurrent: true) { _ in .init(status: 200, contentType: "text/plain", body: Data()) }
        defer { receiver.stop() }
        let added = try await KuronekoBinary.runAside([
            "channels", "add", "--kind", "ntfy", "--url", "http://127.0.0.1:\(receiver.port)/ops", "--kinds", "page_changed",
            "--lang", "en", "--allow-private", "--db", database,
        ])
        try #require(added.status == 0, "\(added.standardError)")
        let server = try await Self.serve(imap, database: database, passwordFile: wrong, more: ["--allow-private-webhooks"])
        #expect(try await eventually { try await Self.metric("kuroneko_mailbox_polls_total", of: server) ?? 0 >= 3 })
        #expect(try await Self.metric("kuroneko_mailbox_failing", of: server) == 1)
        let ready = try await SocketClient(port: server.port).get("/readyz")
        #expect(ready.status == 200)
        let mailbox = try JSON(data: ready.body)["mailbox"]
        #expect(mailbox?["state"]?.string == "failing")
        #expect(mailbox?["problem"]?.string?.contains("could not be read") == true, "\(String(describing: mailbox))")
        #expect(server.logSoFar.components(separatedBy: "could not be read").count - 1 == 1, "said once: \(server.logSoFar.suffix(600))")
        #expect(!server.logSoFar.contains("not-the-password"))
        #expect(await receiver.waitForAnswers(timeout: .seconds(120)) { $0.count >= 1 })
        let told = String(decoding: receiver.requests.first?.body ?? Data(), as: UTF8.self)
        #expect(told.contains(imap.url) && told.contains("could not be read"), "\(told)")
        _ = await server.stop()

        // The password put right: the next server reads the mailbox and says so once; the failure is not told again.
        try await imap.append("amazon-shipped.eml")
        let fixed = try await Self.serve(imap, database: database, more: ["--allow-private-webhooks"])
        defer { fixed.terminate() }
        #expect(await fixed.waitForLog("/INBOX messages=1 uids=1 watched=1"), "\(fixed.logSoFar.suffix(800))")
        #expect(await receiver.waitForAnswers(timeout: .seconds(120)) { $0.count >= 2 })
        #expect(String(decoding: receiver.requests[1].body, as: UTF8.self).contains("Kuroneko reads the shipping mails of \(imap.url) again"))
        #expect(try await eventually { try await Self.metric("kuroneko_mailbox_polls_total", of: fixed) ?? 0 >= 3 })
        #expect(receiver.requests.count == 2, "each told once")
    }
}
