import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoProcess
import KuronekoTestSupport
import Testing

@testable import KuronekoServer
@testable import KuronekoStore

/// The mailbox against a stand-in IMAP server (Tests/IMAP/imap_standin.py) that answers as some servers do:
/// 300 FLAGS lines in one write after SELECT, and a message whose literal never ends between two good ones.
@Suite("the mailbox against a hostile IMAP server", .timeLimit(.minutes(10)))
struct MailboxStandInTests {
    @Test("300 FLAGS lines at once are read; a literal that never ends is skipped with its UID, and the messages on either side are watched")
    func poisonedMessage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imap-standin-\(UUID().uuidString)")
        let script = Fixtures.packageDirectory.appendingPathComponent("Tests/IMAP/imap_standin.py").path
        let nothing = try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null"))
        let child = try ChildProcess(
            "/usr/bin/env", ["python3", script, directory.path], input: nothing.fileDescriptor,
            output: nothing.fileDescriptor, error: FileHandle.standardError.fileDescriptor)
        try nothing.close()
        defer {
            child.send(signal: SIGTERM)
            Thread { _ = child.wait() }.start()
            try? FileManager.default.removeItem(at: directory)
        }
        let portFile = directory.appendingPathComponent("port").path
        #expect(try await eventually(within: .seconds(120)) { FileManager.default.fileExists(atPath: portFile) })
        let port = try String(contentsOfFile: portFile, encoding: .utf8)
        var settings = try MailboxSettings(url: "imaps://hanako@127.0.0.1:\(port)/INBOX", password: "stand-in")
        settings.caFile = directory.appendingPathComponent("ca.pem").path
        // The stand-in goes silent mid-message: two seconds of silence end the wait for it.
        settings.timeout = 2
        let store = try SQLiteWatchStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("standin-\(UUID().uuidString).sqlite").path)
        let lines = LogLines()
        let reader = MailboxReader(
            settings: settings, store: store, clock: SystemClock(), markSeen: false,
            log: ServerLogging.notices(format: .text) { lines.append($0) }, added: {})
        await reader.pollOnce()
        #expect(reader.state.problem == nil, "\(lines.all)")
        let watched = try await store.watches(owner: .local, filter: .all, after: nil, limit: 10).map(\.number.digits).sorted()
        #expect(watched == ["470801200015", "470801200030"], "\(lines.all)")
        #expect(reader.state.messagesSkipped == 1)
        #expect(lines.all.contains { $0.contains("mailbox message skipped") && $0.contains(" uid=2 ") }, "\(lines.all)")
        #expect(try await store.mailboxProgress(reader.name)?.lastUID == 3, "read past the poisoned message")
    }
}
