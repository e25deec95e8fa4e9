import Foundation
import KuronekoHTTP
import KuronekoPostgres
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Logging
import Testing

/// The engines the store tests run on: SQLite always; PostgreSQL when `KURONEKO_TEST_POSTGRES` gives libpq
/// settings for a server (scripts/test starts one with scripts/test-postgres and sets it). With
/// `KURONEKO_REQUIRE_POSTGRES=1` (also set by scripts/test), a missing server fails the suite instead of
/// leaving PostgreSQL untested.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var available: [StoreEngine] { PostgresTestServer.settings == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }

    /// A new, empty store: a temporary file, or a database of its own on the test server.
    func makeStore(maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner) async throws -> EngineStore {
        let limit = maxWatchesPerOwner
        switch self {
        case .sqlite:
            let path = WatchStoreTests.temporaryPath()
            let store = try SQLiteWatchStore(path: path, maxWatchesPerOwner: limit)
            return EngineStore(store: store, another: { try SQLiteWatchStore(path: path, log: $0.map(StoreLog.lines), maxWatchesPerOwner: limit) }) {
                sql, arguments in
                _ = try store.database.writeNow { connection -> Int in try connection.run(sql, arguments).count }
            }
        case .postgres:
            let url = try await PostgresTestServer.freshDatabase()
            let store = try PostgresWatchStore(url: url, maxWatchesPerOwner: limit)
            return EngineStore(store: store, another: { try PostgresWatchStore(url: url, log: $0.map(StoreLog.lines), maxWatchesPerOwner: limit) }) {
                sql, arguments in
                _ = try store.database.writeNow { connection -> Int in try connection.run(sql, arguments).count }
            }
        }
    }
}

/// A store and a way to write to its tables directly (to set up states the API cannot reach quickly).
struct EngineStore {
    let store: any WatchStore
    /// Another store on the same database, as a second server would open it, told of each migration.
    let anotherAnnouncing: ((@Sendable (String) -> Void)?) throws -> any WatchStore
    let write: (String, [[SQLValue]]) throws -> Void

    init(
        store: any WatchStore, another: @escaping ((@Sendable (String) -> Void)?) throws -> any WatchStore,
        run: @escaping (String, [SQLValue]) throws -> Void
    ) {
        self.store = store
        anotherAnnouncing = another
        write = { sql, rows in for arguments in rows { try run(sql, arguments) } }
    }

    /// Another store on the same database, as a second server would open it.
    func another(announce: (@Sendable (String) -> Void)? = nil) throws -> any WatchStore {
        try anotherAnnouncing(announce)
    }
}

enum PostgresTestServer {
    static let settings: String? = ProcessInfo.processInfo.environment["KURONEKO_TEST_POSTGRES"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Creates a database no other test uses; its libpq settings.
    static func freshDatabase() async throws -> String {
        guard let settings else { throw StoreError(code: 0, message: "KURONEKO_TEST_POSTGRES is not set") }
        let name = "kuroneko_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: settings + " dbname=postgres")
        try admin.execute("CREATE DATABASE \(name)")
        return settings + " dbname=\(name)"
    }
}

@Suite("Store engines", .timeLimit(.minutes(10)))
struct StoreEngineTests {
    @Test("PostgreSQL is tested when the test command asks for it")
    func postgresPresent() {
        if ProcessInfo.processInfo.environment["KURONEKO_REQUIRE_POSTGRES"] == "1" {
            #expect(
                PostgresTestServer.settings != nil, "KURONEKO_REQUIRE_POSTGRES=1 but KURONEKO_TEST_POSTGRES is unset")
        } else if PostgresTestServer.settings == nil {
            print("NOTE: KURONEKO_TEST_POSTGRES is unset: the store tests ran on SQLite only (scripts/test runs both)")
        }
    }
}

@Suite(
    "PostgreSQL store", .timeLimit(.minutes(10)),
    .enabled(if: PostgresTestServer.settings != nil, "needs KURONEKO_TEST_POSTGRES (scripts/test sets it)"))
struct PostgresStoreTests {
    @Test("servers starting together migrate once: four at once on an empty database, each migration applied once")
    func concurrentMigrations() async throws {
        let url = try await PostgresTestServer.freshDatabase()
        let opened = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { await onOwnThread { (try? PostgresDatabase(url: url)) != nil } }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(opened == [true, true, true, true])
        let admin = try PostgresConnection(url: url)
        let versions = try admin.run("SELECT version FROM kuroneko_schema ORDER BY version").compactMap { $0.int(0) }
        #expect(versions == Array(1...versions.count) && versions.count >= 3)
    }

    @Test("connections broken while idle (the server restarted or killed them) are replaced at their first use")
    func brokenIdleConnections() async throws {
        let url = try await PostgresTestServer.freshDatabase()
        let database = try PostgresDatabase(url: url)
        let store = PostgresWatchStore(database: database)
        try await store.checkReachable()
        let admin = try PostgresConnection(url: url)
        let ended = try admin.run(
            """
            SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        #expect(ended.first?.int(0) ?? 0 >= 1)
        try await store.checkReachable()
        #expect(try await store.watches(owner: .local, filter: .all, after: nil, limit: 10).isEmpty)
    }

    @Test("a URL's password never shows in messages")
    func redaction() {
        #expect(
            PostgresDatabase.redacted("postgres://shop:s3cret@db.internal/kuroneko")
                == "postgres://shop:***@db.internal/kuroneko")
        #expect(PostgresDatabase.redacted("postgres://db.internal/kuroneko") == "postgres://db.internal/kuroneko")
        #expect(throws: StoreError.self) {
            try PostgresDatabase(url: "postgres://shop:s3cret@127.0.0.1:1/none?connect_timeout=2")
        }
        do {
            _ = try PostgresDatabase(url: "postgres://shop:s3cret@127.0.0.1:1/none?connect_timeout=2")
        } catch {
            #expect(!"\(error)".contains("s3cret"), "\(error)")
        }
    }
}

/// What a store says, as the server's text lines (values as fields), handed to `write`.
enum StoreLog {
    static func lines(_ write: @escaping @Sendable (String) -> Void) -> Logger {
        Logger.lines("kuroneko.store", format: .text, fieldOrder: ServerLogging.fieldOrder, write: write)
    }
}
