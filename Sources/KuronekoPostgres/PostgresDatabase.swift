import Foundation
import Logging
import KuronekoStore
import Synchronization

/// A PostgreSQL database as the watch store uses it: a small pool of connections (at most
/// ``maximumConnections``), a connection lent to one closure at a time. A connection that breaks is
/// replaced by a new one on the next use (and when a reused connection turns out broken at its first
/// statement, the closure runs once more on a new one: nothing had run), so a database that went away and came back is used again
/// without a restart. Waiting for a free connection is bounded (``waitLimit``); past it the caller gets a
/// ``StoreError``, which the API answers with 503.
public final class PostgresDatabase: SQLDatabase {
    public static let insertionOrder = "seq"
    public static let lockingRead = " FOR UPDATE"
    /// Changes are numbered as their transactions write them and committed later: a cursor stops 5 s short.
    public static let changesSettle: TimeInterval = 5
    public static let leasesClaims = true
    public static let ownerLock: String? = "SELECT pg_advisory_xact_lock(7001, hashtext(?))"
    public static func skippingLocked(of alias: String) -> String { " FOR UPDATE OF \(alias) SKIP LOCKED" }
    public static let engineName = "PostgreSQL"
    public static let isRemote = true
    public static let schemaVersionQuery = "SELECT MAX(version) FROM kuroneko_schema"

    public let url: String
    public let maximumConnections: Int
    public let waitLimit: Duration
    private let slots: [Slot]
    /// Whether the search text has its trigram index (pg_trgm): searched with `LIKE`, which the index
    /// answers, else with `strpos` over the owner's list.
    public var trigramSearch: Bool { trigram.load(ordering: .acquiring) }
    private let trigram = Atomic(false)

    public var textMatch: TextMatch { trigramSearch ? .like : .position("strpos") }
    private let permits: DispatchSemaphore

    /// Connects once (to fail early with a clear message) and brings the schema up to date, under an
    /// advisory lock so that servers starting together migrate once.
    /// A database from a newer Kuroneko is refused untouched (``NewerSchemaError``); `log` is told what
    /// each migration does before it runs.
    public init(
        url: String, maximumConnections: Int = 4, waitLimit: Duration = .seconds(5),
        log: Logger? = nil
    ) throws {
        self.url = url
        self.maximumConnections = maximumConnections
        self.waitLimit = waitLimit
        permits = DispatchSemaphore(value: maximumConnections)
        callers = Permits(maximumConnections)
        slots = (0..<maximumConnections).map { _ in Slot() }
        trigram.store(try PostgresSchema.migrate(self, log: log), ordering: .releasing)
    }

    /// Runs `body` in a transaction on a pooled connection, on a thread of the database's queue: a round
    /// trip, or a wait for a free connection, never holds a thread of the cooperative pool.
    public func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await onQueue { try self.writeNow(body) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await onQueue { try self.readNow(body) }
    }

    public func writeNow<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in try connection.transaction { try body(connection) } }
    }

    public func readNow<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// At most as many calls on threads as the pool has connections: more wait, suspended, in order.
    private let callers: Permits
    private static let queue = DispatchQueue(label: "kuroneko.postgres", qos: .userInitiated, attributes: .concurrent)

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        await callers.acquire()
        defer { callers.release() }
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The channel on which servers announce new latest shipments. The payload is the fetch time (seconds
    /// since 1970), the number's digits and the shipment's JSON, separated by spaces; without the JSON when
    /// it would not fit a notification (8,000 bytes), and the listener then reads it from the database.
    public static let shipmentsChannel = "kuroneko_shipments"

    public func announceFetched(_ served: LatestShipment, digits: String, on connection: PostgresConnection) throws {
        var payload = "\(served.fetchedAt.timeIntervalSince1970) \(digits)"
        if served.json.count < 7_000 { payload += " " + String(decoding: served.json, as: UTF8.self) }
        try connection.run("SELECT pg_notify('\(Self.shipmentsChannel)', ?)", [.text(payload)])
    }

    /// What a notification on ``shipmentsChannel`` says: the number, and the shipment when it came along.
    public static func announcement(_ payload: String) -> (digits: String, latest: LatestShipment?)? {
        let parts = payload.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let seconds = Double(parts[0]) else { return nil }
        let latest =
            parts.count == 3
            ? LatestShipment(fetchedAt: Date(timeIntervalSince1970: seconds), json: Data(parts[2].utf8)) : nil
        return (String(parts[1]), latest)
    }

    /// A connection URL with its password replaced by `***`, for logs and messages.
    public static func redacted(_ url: String) -> String {
        PostgresConnection.redacted(url)
    }

    /// Lends a connection: a slot's own, or a new one in a free slot (each slot keeps its connection inside
    /// its `Mutex`, and a permit per slot bounds the waiting).
    func withConnection<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let seconds = Double(waitLimit.components.seconds) + Double(waitLimit.components.attoseconds) / 1e18
        guard permits.wait(timeout: .now() + seconds) == .success else {
            throw StoreError(
                code: 0,
                message: "no PostgreSQL connection came free within \(seconds) s (\(maximumConnections) in use)")
        }
        defer { permits.signal() }
        // Holding a permit, at least one slot is free; another holder may take the first one seen.
        while true {
            for slot in slots {
                let outcome = slot.connection.withLockIfAvailable {
                    (connection: inout PostgresConnection?) -> Result<T, any Error> in
                    do {
                        var reused = true
                        if connection == nil || connection?.isHealthy == false {
                            connection = try PostgresConnection(url: url)
                            reused = false
                        }
                        guard let lent = connection else {
                            throw StoreError(code: 0, message: "no PostgreSQL connection")
                        }
                        lent.statementsSucceeded = 0
                        do {
                            return .success(try body(lent))
                        } catch  where reused && !lent.isHealthy && lent.statementsSucceeded == 0 {
                            // The server went away while this connection sat idle (a restart): its first
                            // statement found it broken, so nothing ran. Once more, on a new connection.
                            let fresh = try PostgresConnection(url: url)
                            connection = fresh
                            return .success(try body(fresh))
                        }
                    } catch {
                        return .failure(error)
                    }
                }
                if let outcome {
                    return try outcome.get()
                }
            }
        }
    }
}

/// One place in the pool: its connection, made on first use and remade when it breaks, never leaves it.
private final class Slot: Sendable {
    let connection = Mutex<PostgresConnection?>(nil)
}
