import CPostgres
import Foundation
import KuronekoStore

/// One libpq connection and the statements prepared on it. Not `Sendable`: one owner at a time (the pool
/// in ``PostgresDatabase`` hands it out under a `Mutex`), and it closes the handle when it goes.
///
/// SQL is written with `?` placeholders, as for SQLite; each statement is rewritten to `$1…$n` and
/// prepared once. Results come back as text and are typed by the column's type (integers, floating point,
/// `bytea` as bytes, the rest as text).
public final class PostgresConnection: SQLConnection {
    let handle: OpaquePointer
    private var statements: [String: String] = [:]
    /// Rows the last statement inserted, updated or deleted.
    public private(set) var changes = 0
    /// Statements that worked since the pool last lent the connection out.
    var statementsSucceeded = 0

    /// Connects with a libpq connection string or URL (`postgres://user@host/db?sslmode=require`); TLS and
    /// every other setting pass through as libpq reads them.
    public init(url: String) throws(StoreError) {
        guard let connection = PQconnectdb(url) else {
            throw StoreError(code: 0, message: "cannot connect to PostgreSQL: out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.oneLine(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError(code: 0, message: "cannot connect to PostgreSQL (\(Self.redacted(url))): \(message)")
        }
        handle = connection
        // Each execution of a prepared statement is planned with its own values: a search for a rare text
        // is then answered by the trigram index, a common one by walking the list in order (a generic plan,
        // blind to the value, chose the walk for both).
        try execute("SET client_min_messages = warning; SET plan_cache_mode = force_custom_plan")
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection still works as far as libpq knows (a failed statement marks it bad).
    var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs SQL without parameters and without preparing it (several statements allowed): schema, locks,
    /// transaction control.
    public func execute(_ sql: String) throws(StoreError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
        statementsSucceeded += 1
    }

    /// Runs one statement with its arguments (prepared on first use); the rows it returns.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [SQLRow] {
        let name = try prepared(sql, count: arguments.count)
        var texts: [Data?] = []
        var formats: [Int32] = []
        for argument in arguments {
            switch argument {
            case .null: texts.append(nil); formats.append(0)
            case .integer(let value): texts.append(Data("\(value)\0".utf8)); formats.append(0)
            case .real(let value): texts.append(Data("\(value)\0".utf8)); formats.append(0)
            case .text(let value): texts.append(Data((value + "\0").utf8)); formats.append(0)
            case .blob(let value): texts.append(value); formats.append(1)
            }
        }
        let lengths = texts.map { Int32($0?.count ?? 0) }
        let result = Self.withPointers(texts) { pointers in
            PQexecPrepared(handle, name, Int32(arguments.count), pointers, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, sql)
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        statementsSucceeded += 1
        return rows(of: result)
    }

    private func prepared(_ sql: String, count: Int) throws(StoreError) -> String {
        if let name = statements[sql] { return name }
        let name = "s\(statements.count)"
        let result = PQprepare(handle, name, Self.numbered(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, "preparing " + sql)
        statements[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, _ sql: String) throws(StoreError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let message = result.map { Self.oneLine(PQresultErrorMessage($0)) } ?? Self.oneLine(PQerrorMessage(handle))
        throw StoreError(
            code: 0, message: "\(sql.prefix(60)): \(message.isEmpty ? Self.oneLine(PQerrorMessage(handle)) : message)",
            sqlState: state)
    }

    private func rows(of result: OpaquePointer?) -> [SQLRow] {
        guard let result else { return [] }
        let count = PQntuples(result)
        let columns = PQnfields(result)
        let types = (0..<columns).map { PQftype(result, $0) }
        let names = SQLColumns((0..<columns).map { column in PQfname(result, column).map { String(cString: $0) } ?? "" })
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(count))
        for row in 0..<count {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columns))
            for column in 0..<columns {
                guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else {
                    values.append(.null)
                    continue
                }
                let value = String(cString: text)
                switch types[Int(column)] {
                case 20, 21, 23: values.append(Int64(value).map(SQLValue.integer) ?? .null)  // int8, int2, int4
                case 16: values.append(.integer(value == "t" ? 1 : 0))  // bool
                case 700, 701, 1700: values.append(Double(value).map(SQLValue.real) ?? .null)  // float4/8, numeric
                case 17: values.append(.blob(Self.bytes(ofEscaped: text)))  // bytea, hex form
                default: values.append(.text(value))
                }
            }
            rows.append(SQLRow(values: values, columns: names))
        }
        return rows
    }

    /// `?` placeholders as `$1`, `$2`, … (the store's SQL has no `?` inside literals).
    static func numbered(_ sql: String) -> String {
        var out = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A `bytea` value in PostgreSQL's hex output form (`\x0a1b…`).
    private static func bytes(ofEscaped text: UnsafePointer<CChar>) -> Data {
        var length = 0
        guard let raw = PQunescapeBytea(UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), &length) else {
            return Data()
        }
        defer { PQfreemem(raw) }
        return Data(bytes: raw, count: length)
    }

    private static func withPointers<T>(_ values: [Data?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        // Copies every argument into memory that lives until the call returns.
        let buffers = values.map { value -> UnsafeMutableRawBufferPointer? in
            guard let value else { return nil }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, value.count), alignment: 1)
            _ = value.copyBytes(to: buffer.bindMemory(to: UInt8.self))
            return buffer
        }
        defer { buffers.forEach { $0?.deallocate() } }
        return body(buffers.map { $0.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self)) } })
    }

    static func oneLine(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The connection string without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
