import Foundation
import Synchronization
import Testing

@testable import KuronekoStore

/// The threads that own SQLite's connections: writes queued together share one commit, one that throws is
/// rolled back alone, and a call cancelled before its turn never runs.
@Suite("SQLite's connection threads", .timeLimit(.minutes(10)))
struct SQLiteWorkerTests {
    static func database() throws -> SQLiteDatabase {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(UUID().uuidString).sqlite")
        return try SQLiteDatabase(
            path: path.path,
            migrations: [.init(version: 1, sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)")])
    }

    struct Refused: Error {}

    @Test("many writes at once: each answered, the failing one rolled back alone, the rest committed")
    func groupCommit() async throws {
        let database = try Self.database()
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await database.write { connection in
                            try connection.run("INSERT INTO t (v) VALUES (?)", [.text("row \(index)")])
                            // Written, then refused: its insert must not survive.
                            if index % 50 == 7 { throw Refused() }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            var all: [(Int, Bool)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.count == 200)
        let refused = Set(outcomes.filter { !$0.1 }.map(\.0))
        #expect(refused == [7, 57, 107, 157])
        let kept = try await database.read { connection in
            try connection.run("SELECT v FROM t").compactMap { $0.text(0) }
        }
        #expect(kept.count == 196)
        #expect(Set(kept) == Set((0..<200).filter { !refused.contains($0) }.map { "row \($0)" }))
    }

    @Test("a write whose task is cancelled before its turn does not run")
    func cancelledBeforeTurn() async throws {
        let database = try Self.database()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // The writer is held by a first write, so the second waits in the queue.
        async let first: Void = database.write { connection in
            entered.signal()
            release.wait()
            try connection.run("INSERT INTO t (v) VALUES ('first')")
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        let second = Task {
            try await database.write { connection in try connection.run("INSERT INTO t (v) VALUES ('second')") }
        }
        // Queued behind the first (seen in the writer's queue): cancelled there, then the writer let go.
        while database.writesQueued == 0 { await Task.yield() }
        second.cancel()
        release.signal()
        try await first
        await #expect(throws: CancellationError.self) { try await second.value }
        let rows = try await database.read { connection in
            try connection.run("SELECT v FROM t").compactMap { $0.text(0) }
        }
        #expect(rows == ["first"])
    }
}
