import Foundation
import Logging
import Synchronization

/// One database file and its connections, each owned by a thread of its own (``SQLiteWorker``), off the
/// cooperative pool: one writer, whose calls run in a transaction that commits when the closure returns and
/// rolls back when it throws (calls queued together share one commit, each in a savepoint), and
/// ``readers`` readers, which in WAL mode go on beside a write instead of waiting for it. Every use is a
/// closure that runs with its connection to itself; callers await it, and a caller cancelled before its
/// turn is not run.
public final class SQLiteDatabase: SQLDatabase {
    public static let insertionOrder = "rowid"
    /// One writer at a time holds the whole file: nothing to lock row by row.
    public static let lockingRead = ""
    /// One server per file: nobody to share work with.
    public static let leasesClaims = false
    public static func skippingLocked(of alias: String) -> String { "" }
    public static let engineName = "SQLite"
    public static let isRemote = false
    public static let schemaVersionQuery = "PRAGMA user_version"

    /// One step of the schema: applied once, in order, in a transaction of its own.
    public struct Migration: Sendable {
        public let version: Int
        public let sql: String
        /// Runs after `sql`, in its transaction: rows filled by code rather than by SQL (values computed in Swift).
        public let fill: (@Sendable (SQLiteConnection) throws -> Void)?

        public init(version: Int, sql: String, fill: (@Sendable (SQLiteConnection) throws -> Void)? = nil) {
            self.version = version
            self.sql = sql
            self.fill = fill
        }
    }

    /// A search looks up its trigrams in `watch_search` (FTS5, kept by triggers), then checks the text.
    public var textMatch: TextMatch { .trigramTable("watch_search", then: "instr") }

    /// Reading connections, each on its own thread.
    public static let readers = 2

    public let path: String
    private let writer: SQLiteWorker
    private let readerWorkers: [SQLiteWorker]
    private let nextReader = Atomic(0)

    /// Opens the file and brings its schema up to the last migration. Two processes opening one file at
    /// once migrate it once: the version is read again inside the write lock. A file at a version newer than
    /// the last migration is refused before anything is written (``NewerSchemaError``).
    /// - Parameters:
    ///   - upTo: stop after this version (tests of upgrades from earlier versions).
    ///   - log: told what each migration does, before it runs.
    public init(
        path: String, migrations: [Migration], upTo: Int? = nil, log: Logger? = nil
    ) throws {
        self.path = path
        let reading = try SQLiteConnection(path: path)
        let found = try reading.run("PRAGMA user_version").first?.int(0) ?? 0
        try SchemaVersions.check(
            found: found, supported: migrations.map(\.version).max() ?? 0, location: path)
        let writing = try SQLiteConnection(path: path)
        let steps = migrations.sorted(by: { $0.version < $1.version }).filter { $0.version <= (upTo ?? .max) }
        // A new file is made whole in one breath: said once, not step by step.
        if found == 0, let last = steps.last {
            SchemaVersions.announce(creating: path, version: last.version, on: log)
        }
        // Migrations run here, before the connections are handed to their threads.
        for migration in steps {
            try writing.transaction(begin: "BEGIN IMMEDIATE") {
                let rows = try writing.run("PRAGMA user_version")
                let current = rows.first?.int(0) ?? 0
                guard current < migration.version else { return }
                if found > 0 {
                    SchemaVersions.announce(migrating: path, from: current, to: migration.version, on: log)
                }
                try writing.execute(migration.sql)
                try migration.fill?(writing)
                try writing.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        var readers = [SQLiteWorker(connection: reading, kind: .reader, name: "kuroneko.sqlite.reader.0")]
        for index in 1..<max(1, Self.readers) {
            readers.append(
                SQLiteWorker(connection: try SQLiteConnection(path: path), kind: .reader, name: "kuroneko.sqlite.reader.\(index)"))
        }
        readerWorkers = readers
        writer = SQLiteWorker(connection: writing, kind: .writer, name: "kuroneko.sqlite.writer")
    }

    deinit {
        writer.stop()
        for reader in readerWorkers { reader.stop() }
    }

    /// The schema version the file is at.
    public var version: Int {
        get throws {
            let rows = try readNow { (connection: SQLiteConnection) in try connection.run("PRAGMA user_version") }
            return rows.first?.int(0) ?? 0
        }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`: the write lock is taken at once, so two
    /// processes never deadlock upgrading a read lock), on the writer's thread.
    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.run(body)
    }

    /// Runs `body` with a reading connection, outside any explicit transaction (each statement sees a
    /// consistent snapshot: every transaction committed before it began), on that reader's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await reader().run(body)
    }

    /// ``write(_:)``, blocking the calling thread until it is done (tests and the few synchronous paths).
    public func writeNow<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) throws -> T {
        try writer.runAndWait(body)
    }

    /// ``read(_:)``, blocking the calling thread until it is done.
    public func readNow<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) throws -> T {
        try reader().runAndWait(body)
    }

    /// Writes waiting for the writer (tests).
    var writesQueued: Int { writer.queuedCount }

    private func reader() -> SQLiteWorker {
        // Wrapping, and by magnitude: no count of reads can trap or index out of range.
        readerWorkers[Int(nextReader.wrappingAdd(1, ordering: .relaxed).oldValue.magnitude % UInt(readerWorkers.count))]
    }

    /// Writes a copy of the database to a new file at `path` (mode 0600), safe while a server uses the
    /// database; the copy's `PRAGMA integrity_check` (`["ok"]` for a sound copy).
    /// - Throws: ``StoreError`` when `path` exists already or cannot be written.
    public func backup(to path: String) throws -> [String] {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError(code: 0, message: "\(path) exists already; give the backup a new file's path")
        }
        try readNow { (source: SQLiteConnection) in
            let destination = try SQLiteConnection(path: path)
            try source.backup(into: destination)
        }
        let copy = try SQLiteConnection(path: path)
        return try copy.run("PRAGMA integrity_check").compactMap { $0.text(0) }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws -> [String] {
        let rows = try readNow { (connection: SQLiteConnection) in try connection.run("PRAGMA integrity_check") }
        return rows.compactMap { $0.text(0) }
    }
}
