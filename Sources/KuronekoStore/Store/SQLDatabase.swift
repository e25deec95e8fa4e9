import Foundation

/// A connection as the watch store uses it: one statement at a time, `?` placeholders, typed rows.
public protocol SQLConnection: AnyObject {
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
    /// Runs SQL without arguments or results (transaction control, schema).
    func execute(_ sql: String) throws
    /// Rows the last statement inserted, updated or deleted.
    var changes: Int { get }
}

/// An engine the watch store runs on (SQLite, PostgreSQL): connections lent to closures, writes in a
/// transaction that commits when the closure returns and rolls back when it throws. The closures run on
/// threads of the engine's own, never on the cooperative pool (SQLite: a thread per connection; PostgreSQL:
/// a dispatch queue, at most as many at once as the pool has connections); the caller awaits them, and one
/// cancelled before its turn is not run. The store's SQL is common to both; the few words that differ are
/// here.
public protocol SQLDatabase: Sendable {
    associatedtype Connection: SQLConnection
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// ``write(_:)`` blocking the calling thread (tests, and callers on threads of their own).
    func writeNow<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) throws -> T
    /// ``read(_:)`` blocking the calling thread.
    func readNow<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) throws -> T
    /// A column that orders a table's rows as they were inserted (SQLite's `rowid`).
    static var insertionOrder: String { get }
    /// Appended to a SELECT whose rows the transaction goes on to update, so two servers sharing the
    /// database take turns on them (` FOR UPDATE` on PostgreSQL; nothing on SQLite, whose writer holds the
    /// whole file).
    static var lockingRead: String { get }
    /// Appended to the SELECT of a claim (with `OF` and the table's alias where the SELECT joins), so a
    /// server passes over rows another is claiming instead of waiting for them (` FOR UPDATE OF w SKIP
    /// LOCKED` on PostgreSQL; nothing on SQLite).
    static func skippingLocked(of alias: String) -> String
    /// Whether claims take leases. Only where several servers share the database: a server alone waits for
    /// its own checks and deliveries before it claims again, and after a crash must not find its work held
    /// by a lease of its dead self.
    static var leasesClaims: Bool { get }
    /// A statement taking one `?` (an owner) that makes concurrent adds for that owner take turns until the
    /// transaction ends, so the per-owner limit holds across servers (an advisory lock on PostgreSQL; `nil`
    /// on SQLite, whose writer holds the whole file).
    static var ownerLock: String? { get }
    /// Tells the other servers, once the transaction commits, that a number has a new latest shipment.
    func announceFetched(_ served: LatestShipment, digits: String, on connection: Connection) throws
    /// What servers on this database share through it; `nil` for an engine one server has to itself.
    func sharing<Store: WatchStore>(for store: Store) -> (any SharedDatabase)?
    /// Copies the database into a new file while it is in use; the copy's integrity check.
    func backup(to path: String) throws -> [String]
    /// Whether the database is reached over the network (PostgreSQL), not a local file (SQLite).
    static var isRemote: Bool { get }
    /// How a search's needle is looked for in a column of text (``TextMatch``).
    var textMatch: TextMatch { get }
    static var changesSettle: TimeInterval { get }
    /// `SQLite` or `PostgreSQL`, for `kuroneko db status`.
    static var engineName: String { get }
    /// A query of one row and one integer: the schema version the database is at.
    static var schemaVersionQuery: String { get }
}

extension SQLDatabase {
    public static var ownerLock: String? { nil }
    /// How long after a change is numbered its transaction may still be writing changes numbered before it:
    /// a changes cursor stops short of what is younger (none on SQLite, whose one writer commits in order).
    public static var changesSettle: TimeInterval { 0 }
    public var textMatch: TextMatch { .position("instr") }

    /// An engine with tools of its own for backups (PostgreSQL: pg_dump).
    public func backup(to path: String) throws -> [String] {
        throw WatchStoreError.backupUnsupported(Self.engineName)
    }

    /// One server alone: nothing to share.
    public func sharing<Store: WatchStore>(for store: Store) -> (any SharedDatabase)? { nil }

    /// One server alone: nobody to tell.
    public func announceFetched(_ served: LatestShipment, digits: String, on connection: Connection) throws {}
}

extension SQLConnection {
    /// Runs `body` between `begin` and `COMMIT`; a body that throws is rolled back.
    public func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A statement without arguments.
    @discardableResult
    public func run(_ sql: String) throws -> [SQLRow] {
        try run(sql, [])
    }
}

/// How an engine finds a needle in a column of text, taken literally either way.
public enum TextMatch: Sendable {
    /// A function giving where one text is found in another, 0 when it is not (`instr`, `strpos`): a scan.
    case position(String)
    /// `LIKE '%needle%'` with `%`, `_` and `\` escaped, which a trigram index answers (PostgreSQL's pg_trgm).
    case like
    /// A needle of three characters or more is first looked up in an FTS5 trigram table (`table`, its rowids
    /// the watches'), then checked with `function`; a shorter one is only checked (SQLite).
    case trigramTable(String, then: String)

    /// Up to three trigrams of `needle` that do not overlap, taken from its end (in Unicode scalars, as the
    /// trigram index counts). What people look for shares its start with many others (090-, 080-, A-0…) and
    /// differs at its end, so these are the index's short lists: a search of a telephone among 100,000 that
    /// all start 090-000 reads a thousand rows, not every row. Any row holding the needle holds them.
    static func endTrigrams(of needle: String) -> [String] {
        let scalars = Array(needle.unicodeScalars)
        var grams: [String] = []
        var end = scalars.count
        while end >= 3, grams.count < 3 {
            var gram = String.UnicodeScalarView()
            gram.append(contentsOf: scalars[(end - 3)..<end])
            grams.append(String(gram))
            end -= 3
        }
        return grams
    }

    /// The condition on `column` and its arguments.
    func condition(_ column: String, needle: String) -> (sql: String, arguments: [SQLValue]) {
        switch self {
        case .position(let function):
            return ("\(function)(\(column), ?) > 0", [.text(needle)])
        case .trigramTable(let table, let function):
            let check = "\(function)(\(column), ?) > 0"
            let grams = Self.endTrigrams(of: needle)
            guard !grams.isEmpty else { return (check, [.text(needle)]) }
            // Rows holding the needle's last trigrams, then only those holding the needle itself. Only `"` is
            // special inside a quoted term.
            let query = grams.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
            return ("w.id IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?) AND " + check, [.text(query), .text(needle)])
        case .like:
            var pattern = "%"
            for character in needle {
                if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
                pattern.append(character)
            }
            return ("\(column) LIKE ? ESCAPE '\\'", [.text(pattern + "%")])
        }
    }
}
