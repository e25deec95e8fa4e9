import CSQLite
import Foundation

/// A value bound to, or read from, an SQL statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A failure of the database, with the engine's code and message: one line.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code, or 0 (PostgreSQL, or a failure of the store's own).
    public let code: Int32
    public let message: String
    /// PostgreSQL's SQLSTATE, when PostgreSQL reported the failure.
    public let sqlState: String?

    public init(code: Int32, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }

    /// A unique constraint refused the row (SQLite's SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY, SQLSTATE 23505).
    public var isUniqueViolation: Bool { code == 2067 || code == 1555 || sqlState == "23505" }

    static func sqlite(_ code: Int32, _ handle: OpaquePointer?, _ context: String) -> StoreError {
        let detail =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
        return StoreError(code: code, message: "\(context): \(detail)")
    }
}

/// The names of a result's columns, shared by all its rows.
public final class SQLColumns: Sendable {
    public let names: [String]
    private let positions: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func position(of name: String) -> Int? { positions[name] }
}

/// One result row. The store reads its columns by name: a name the result lacks, or a value of another
/// type than asked for, throws (never a silent default); NULL reads as `nil`, and the `required` forms
/// throw for it too.
public struct SQLRow: Sendable {
    public let values: [SQLValue]
    public let columns: SQLColumns

    public init(values: [SQLValue], columns: SQLColumns = SQLColumns([])) {
        self.values = values
        self.columns = columns
    }

    /// The value at `index`; `.null` past the end (a positional read never traps).
    private func value(at index: Int) -> SQLValue { values.indices.contains(index) ? values[index] : .null }

    public func int(_ index: Int) -> Int? {
        if case .integer(let value) = value(at: index) { return Int(value) }
        return nil
    }

    public func double(_ index: Int) -> Double? {
        switch value(at: index) {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    public func text(_ index: Int) -> String? {
        if case .text(let value) = value(at: index) { return value }
        return nil
    }

    public func data(_ index: Int) -> Data? {
        switch value(at: index) {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }

    public func date(_ index: Int) -> Date? {
        double(index).map(Date.init(timeIntervalSince1970:))
    }

    // MARK: By name

    private func value(_ name: String) throws(StoreError) -> SQLValue {
        guard let index = columns.position(of: name), values.indices.contains(index) else {
            throw StoreError(
                code: 0, message: "the result has no column \(name); it has \(columns.names.joined(separator: ", "))")
        }
        return values[index]
    }

    private func mismatch(_ name: String, _ expected: String, _ found: SQLValue) -> StoreError {
        StoreError(code: 0, message: "column \(name) holds \(found.kind), not \(expected)")
    }

    public func int(_ name: String) throws(StoreError) -> Int? {
        switch try value(name) {
        case .null: return nil
        case .integer(let value): return Int(value)
        case let other: throw mismatch(name, "an integer", other)
        }
    }

    public func double(_ name: String) throws(StoreError) -> Double? {
        switch try value(name) {
        case .null: return nil
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case let other: throw mismatch(name, "a number", other)
        }
    }

    public func text(_ name: String) throws(StoreError) -> String? {
        switch try value(name) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw mismatch(name, "text", other)
        }
    }

    public func data(_ name: String) throws(StoreError) -> Data? {
        switch try value(name) {
        case .null: return nil
        case .blob(let value): return value
        case .text(let value): return Data(value.utf8)
        case let other: throw mismatch(name, "bytes", other)
        }
    }

    public func date(_ name: String) throws(StoreError) -> Date? {
        try double(name).map(Date.init(timeIntervalSince1970:))
    }

    public func requiredInt(_ name: String) throws(StoreError) -> Int { try required(name, int(name)) }
    public func requiredText(_ name: String) throws(StoreError) -> String { try required(name, text(name)) }
    public func requiredData(_ name: String) throws(StoreError) -> Data { try required(name, data(name)) }
    public func requiredDate(_ name: String) throws(StoreError) -> Date { try required(name, date(name)) }

    private func required<T>(_ name: String, _ value: T?) throws(StoreError) -> T {
        guard let value else { throw StoreError(code: 0, message: "column \(name) is NULL") }
        return value
    }
}

extension SQLValue {
    /// What the value is, for a mismatch's message.
    var kind: String {
        switch self {
        case .null: "NULL"
        case .integer: "an integer"
        case .real: "a real number"
        case .text: "text"
        case .blob: "bytes"
        }
    }
}

/// One SQLite connection and its prepared statements. Not `Sendable`: exactly one owner uses it at a time
/// (``SQLiteDatabase`` keeps it in a `Mutex`), and it closes the handle when it goes.
public final class SQLiteConnection: SQLConnection {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private var columnNames: [String: SQLColumns] = [:]

    /// Opens (creating with mode 0600 when missing) the file at `path`, in WAL mode with foreign keys on,
    /// `synchronous=NORMAL` (a committed transaction survives the process being killed) and a busy timeout,
    /// so that a command-line run and a server can use one file at once.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(
                    code: 0, message: "cannot create the directory \(directory): \(error.localizedDescription)")
            }
        }
        if !FileManager.default.fileExists(atPath: path) {
            let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
            guard descriptor >= 0 else {
                throw StoreError(code: 0, message: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            close(descriptor)
        }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let error = StoreError.sqlite(result, opened, "cannot open the database \(path)")
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Copies the whole database into `destination` with SQLite's online backup, in one step: one read
    /// transaction, so the copy is one consistent moment while writers go on (WAL).
    func backup(into destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw StoreError.sqlite(sqlite3_errcode(destination.handle), destination.handle, "cannot start the backup")
        }
        let result = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE, finished == SQLITE_OK else {
            throw StoreError.sqlite(result == SQLITE_DONE ? finished : result, destination.handle, "the backup failed")
        }
    }

    /// Runs SQL that returns no rows the caller needs (several statements allowed).
    public func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_free(message)
            throw StoreError(code: result, message: "\(sql.prefix(60)): \(text)")
        }
    }

    /// Runs one statement (prepared once and kept) with its arguments; the rows it returns.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch argument {
            case .null: result = sqlite3_bind_null(statement, index)
            case .integer(let value): result = sqlite3_bind_int64(statement, index, value)
            case .real(let value): result = sqlite3_bind_double(statement, index, value)
            case .text(let value): result = kuroneko_sqlite_bind_text(statement, index, value, -1)
            case .blob(let value):
                result = value.withUnsafeBytes {
                    kuroneko_sqlite_bind_blob(statement, index, $0.baseAddress, Int32($0.count))
                }
            }
            guard result == SQLITE_OK else { throw .sqlite(result, handle, "binding \(sql.prefix(60))") }
        }
        var rows: [SQLRow] = []
        var columns: SQLColumns?
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw .sqlite(step, handle, sql.prefix(60).description) }
            if columns == nil { columns = self.columns(of: statement, sql: sql) }
            rows.append(row(of: statement, columns: columns ?? SQLColumns([])))
        }
        return rows
    }

    /// The statement's column names, read once per statement and kept.
    private func columns(of statement: OpaquePointer, sql: String) -> SQLColumns {
        if let known = columnNames[sql] { return known }
        let names = (0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
        let columns = SQLColumns(names)
        columnNames[sql] = columns
        return columns
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw .sqlite(result, handle, "preparing \(sql.prefix(60))") }
        statements[sql] = statement
        return statement
    }

    private func row(of statement: OpaquePointer, columns: SQLColumns) -> SQLRow {
        let count = sqlite3_column_count(statement)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, column)))
            case SQLITE_TEXT:
                values.append(.text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""))
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(statement, column))
                let bytes = sqlite3_column_blob(statement, column)
                values.append(.blob(bytes.map { Data(bytes: $0, count: length) } ?? Data()))
            default: values.append(.null)
            }
        }
        return SQLRow(values: values, columns: columns)
    }
}
