import Foundation
import Logging
import KuronekoHTTP
import Kuroneko
import KuronekoNotify
import KuronekoTestSupport
import Testing

@testable import KuronekoServer
@testable import KuronekoStore

/// Store failures in background work are never lost in silence: logged once, counted, and an answer whose
/// recording failed is recorded at the next try.
@Suite("Store failures", .timeLimit(.minutes(10)))
struct StoreFailureTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("failures-\(UUID().uuidString).sqlite").path
    }

    func shipment(_ number: TrackingNumber) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: .inTransit, label: "輸送中", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    @Test("an answer whose recording fails is logged and counted, kept, and recorded at the next try")
    func recordingRetried() async throws {
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: now)
        // The database refuses the shipment, as a full disk or a lock held too long would.
        _ = try store.database.writeNow { connection in
            try connection.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON shipments BEGIN SELECT RAISE(FAIL, 'disk is full'); END")
        }
        let lines = LogLines()
        let failures = StoreFailures(log: ServerLogging.events(format: .text) { lines.append($0) })
        let changed = LogLines()
        let recorder = AnswerRecorder(
            store: store, failures: failures, nextCheck: { _, _, fetched in fetched.addingTimeInterval(3_600) },
            changed: { changed.append("rang") })
        await recorder.record(shipment(number), fetchedAt: now)
        #expect(recorder.waitingCount == 1)
        #expect(failures.count(.record) == 1)
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(line.hasPrefix("store operation=record error=") && line.contains("disk is full"), "\(line)")
        #expect(line.contains("number=\(number.masked) kept_to_retry=true") && !line.contains(number.digits))
        let registry = MetricsRegistry()
        failures.record(into: registry)
        #expect(String(decoding: registry.render(), as: UTF8.self).contains("kuroneko_store_errors_total{operation=\"record\"} 1"))
        #expect(try await store.watch(number, owner: .local)?.checkedAt == nil)

        // While the database still refuses, a retry fails again and keeps the answer.
        await recorder.retryWaiting()
        #expect(recorder.waitingCount == 1 && failures.count(.record) == 2)

        _ = try store.database.writeNow { connection in try connection.execute("DROP TRIGGER refuse") }
        await recorder.retryWaiting()
        #expect(recorder.waitingCount == 0)
        #expect(try await store.watch(number, owner: .local)?.checkedAt == now)
        #expect(failures.count(.record) == 2)
    }

    @Test("a mailbox whose failure the store cannot record: logged and counted, the mailbox still shown failing")
    func mailboxStateNotRecorded() async throws {
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        _ = try store.database.writeNow { connection in
            try connection.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON mailboxes BEGIN SELECT RAISE(FAIL, 'disk is full'); END")
        }
        let lines = LogLines()
        let failures = StoreFailures(log: ServerLogging.events(format: .text) { lines.append($0) })
        // Nothing listens on port 1: the read fails at once, and recording that fails too.
        var settings = try MailboxSettings(url: "imaps://hanako@127.0.0.1:1/INBOX", password: "p")
        settings.timeout = 5
        let reader = MailboxReader(
            settings: settings, store: store, clock: ManualClock(start: now), markSeen: false, failures: failures,
            log: ServerLogging.notices(format: .text) { lines.append($0) }, added: {})
        await reader.pollOnce()
        #expect(failures.count(.mailbox) == 1)
        #expect(lines.all.contains { $0.hasPrefix("store operation=mailbox error=") && $0.contains("disk is full") }, "\(lines.all)")
        #expect(reader.state.problem?.contains("could not be read") == true)
    }

    @Test("a cancelled store call is neither logged nor counted")
    func cancellationIsNoFailure() {
        let lines = LogLines()
        let failures = StoreFailures(log: ServerLogging.events(format: .text) { lines.append($0) })
        failures.report(.claimChecks, CancellationError())
        #expect(lines.all.isEmpty && failures.count(.claimChecks) == 0)
    }
}
