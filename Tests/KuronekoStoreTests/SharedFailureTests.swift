import Foundation
import Kuroneko
import KuronekoPostgres
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

/// The PostgreSQL budget's and listener's database errors are reported, once for a run of them, never
/// dropped in silence.
@Suite("shared database failures", .timeLimit(.minutes(10)))
struct SharedFailureTests {
    final class Reports: Sendable {
        private let errors = Mutex<[String]>([])
        func add(_ error: any Error) { errors.withLock { $0.append("\(error)") } }
        var all: [String] { errors.withLock { $0 } }
    }

    @Test("a run of failures is one report; after a call works, the next failure is reported again")
    func once() {
        let reports = Reports()
        let run = FailureRun(reports.add)
        struct Broken: Error {}
        #expect(run.reporting { () throws -> Int in throw Broken() } == nil)
        #expect(run.reporting { () throws -> Int in throw Broken() } == nil)
        #expect(reports.all.count == 1)
        #expect(run.reporting { 7 } == 7)
        run.failed(Broken())
        #expect(reports.all.count == 2)
    }

    @Test("the budget reports its database's error once, and holds requests back meanwhile")
    func budget() async throws {
        guard PostgresTestServer.settings != nil else { return }
        let store = try PostgresWatchStore(url: try await PostgresTestServer.freshDatabase())
        let shared = try #require(store.shared)
        let reports = Reports()
        let budget = try shared.upstreamBudget(
            carrier: .seino, maxConcurrent: 1, minimumInterval: .seconds(1), clock: SystemClock(), failed: reports.add)
        let database = store.database
        // The database's calls block their thread: on one of their own, not the tests' pool.
        try await awaitBlocking {
            Result { try database.writeNow { connection -> Int in try connection.run("DROP TABLE upstream_pacing").count } }
        }.get()
        let waiting = Task { try await budget.acquire() }
        defer { waiting.cancel() }
        #expect(try await eventually { !reports.all.isEmpty })
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.contains("upstream_pacing") == true)
    }

    @Test("a listener that cannot reach its database reports it once")
    func listener() async throws {
        let reports = Reports()
        let listener = PostgresListener(
            url: "host=/nonexistent-kuroneko dbname=none connect_timeout=1", channel: "nothing",
            failures: FailureRun(reports.add)) { _ in }
        #expect(try await eventually { !reports.all.isEmpty })
        await awaitBlocking { listener.stop() }
        #expect(reports.all.count == 1)
    }
}
