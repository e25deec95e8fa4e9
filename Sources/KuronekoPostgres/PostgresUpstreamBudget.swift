import Dispatch
import Foundation
import Kuroneko
import KuronekoStore
import Synchronization

/// The politeness budget shared by every server on one PostgreSQL database: across all of them at most
/// `maxConcurrent` requests to one carrier in flight and starts at least `minimumInterval` apart, so three
/// servers send Yamato, Sagawa or Japan Post no more than one would. Each carrier has its own budget (its own
/// slots and pacing row, keyed by the carrier's name).
///
/// Two tables hold it. `upstream_slots` has a row per POST that may be in flight, with its holder and a
/// lease; `upstream_pacing` is one row with the last start reserved and the last POST actually sent. A grant
/// is one transaction: lock the pacing row (`FOR UPDATE`, so grants from all servers queue on it), take a
/// free slot (or one whose lease ran out: its server died mid-POST), reserve a start at `max(now, last
/// reserved + interval)` by the database's clock, commit, and sleep until then. A server can run late after
/// its reservation (a busy machine), so the reservation alone would let two POSTs leave closer together than
/// the interval: ``started()``, called just before a POST goes on the wire, is the gate. It locks the pacing
/// row again and lets the POST go only once the last one sent is at least the interval (plus ``margin``)
/// back, recording this one as the last sent; a grant that reaches its task late (``staleGrant``) is spent and
/// asked for again. All servers read one clock, so their own clocks' drift does
/// not matter. When every slot is taken, the grant is tried again every ``retryDelay``; when the database
/// cannot be reached, every ``unreachableDelay``, and nothing is sent meanwhile (lookups then time out at
/// their deadline rather than go over the budget).
public final class PostgresUpstreamBudget: UpstreamBudget {
    public let maxConcurrent: Int
    public let minimumInterval: Duration
    /// How long a slot stays with a server that took it: longer than any POST (the timeout is 15 s).
    public static let lease: TimeInterval = 60
    public static let retryDelay = Duration.milliseconds(25)
    /// Added to the interval at the gate: what one server's connection to Yamato may take longer than
    /// another's between the gate and the wire.
    public static let margin: TimeInterval = 0.05
    public static let unreachableDelay = Duration.milliseconds(500)

    private let database: PostgresDatabase
    /// The carrier whose budget this is (each has its own slots and pacing row), by its stable name.
    private let carrier: String
    private let clock: any TrackingClock
    private let holder: String
    /// Slots this server holds, handed back one by one as POSTs end.
    private let held = Mutex<[Int]>([])
    /// The database calls block their thread: they run here, not on the tasks' threads.
    private let queue = DispatchQueue(label: "kuroneko.upstream-budget")

    private let failures: FailureRun
    /// Runs after each answer from the gate, before it is used (tests make it slow there).
    private let afterGate: @Sendable () async -> Void

    public convenience init(
        database: PostgresDatabase, carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration,
        clock: any TrackingClock
    ) throws {
        try self.init(
            database: database, carrier: carrier, maxConcurrent: maxConcurrent, minimumInterval: minimumInterval,
            clock: clock, afterGate: {})
    }

    /// - Parameter failures: told of the first database error of a run of them (then held back until a call works).
    init(
        database: PostgresDatabase, carrier: Carrier, maxConcurrent: Int, minimumInterval: Duration,
        clock: any TrackingClock, failures: FailureRun = FailureRun { _ in },
        afterGate: @escaping @Sendable () async -> Void = {}
    ) throws {
        self.afterGate = afterGate
        self.failures = failures
        self.carrier = carrier.rawValue
        self.database = database
        self.maxConcurrent = max(1, maxConcurrent)
        self.minimumInterval = max(.zero, minimumInterval)
        self.clock = clock
        holder = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
        let (slots, carrier) = (self.maxConcurrent, self.carrier)
        _ = try database.writeNow { connection -> Int in
            try connection.run(
                "INSERT INTO upstream_pacing (carrier) VALUES (?) ON CONFLICT DO NOTHING", [.text(carrier)])
            return try connection.run(
                """
                INSERT INTO upstream_slots (carrier, slot) SELECT ?, generate_series(1, ?::integer)
                ON CONFLICT DO NOTHING
                """,
                [.text(carrier), .integer(Int64(slots))]
            ).count
        }
    }

    private enum Grant: Sendable {
        case granted(slot: Int, wait: Double)
        case busy
        case unreachable
    }

    public func acquire() async throws {
        while true {
            try Task.checkCancellation()
            switch await grant() {
            case .granted(let slot, let wait):
                held.withLock { $0.append(slot) }
                if wait > 0 {
                    do {
                        try await clock.sleep(until: clock.uptime + .milliseconds(Int64((wait * 1000).rounded(.up))))
                    } catch {
                        await release()
                        throw error
                    }
                }
                return
            case .busy:
                try await clock.sleep(until: clock.uptime + Self.retryDelay)
            case .unreachable:
                try await clock.sleep(until: clock.uptime + Self.unreachableDelay)
            }
        }
    }

    public func started() async {
        var staleGrants = 0
        // A POST given up meanwhile (its task cancelled) stops waiting here; its send fails at once.
        while !Task.isCancelled {
            guard let (wait, readAt) = await gate() else {
                // The database is out of reach: nothing leaves until it is back.
                try? await clock.sleep(until: clock.uptime + Self.unreachableDelay)
                continue
            }
            await afterGate()
            if wait <= 0 {
                // The grant is for the moment the database's clock was read. If this task resumes much later
                // (a slow commit, a busy machine), the POST would leave that much closer to the next server's:
                // the grant is spent and the gate asked again, which waits a whole interval from it. A few
                // times at most, so that a machine this slow still sends.
                guard ContinuousClock.now - readAt > Self.staleGrant, staleGrants < Self.staleGrantsAtMost else {
                    return
                }
                staleGrants += 1
                continue
            }
            try? await clock.sleep(until: clock.uptime + .milliseconds(Int64((wait * 1000).rounded(.up))))
        }
    }

    /// A grant used later than this after the database's clock was read is asked for again.
    public static let staleGrant = Duration.milliseconds(200)
    /// How many stale grants one POST asks again for before it goes anyway.
    static let staleGrantsAtMost = 3

    /// Lets one POST leave: `0` when it may go now (and it is recorded as sent), the seconds to wait
    /// otherwise, with when (on this process's monotonic clock) the database's clock was read; `nil` when
    /// the database cannot be reached.
    private func gate() async -> (wait: Double, readAt: ContinuousClock.Instant)? {
        let interval = minimumInterval
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let spacing = seconds > 0 ? seconds + Self.margin : 0
        return await onQueue { [database, carrier, failures] in
            failures.reporting { try database.writeNow { connection -> (wait: Double, readAt: ContinuousClock.Instant) in
                let pacing = try connection.run(
                    "SELECT last_sent, extract(epoch FROM clock_timestamp()) FROM upstream_pacing WHERE carrier = ? FOR UPDATE",
                    [.text(carrier)])
                let readAt = ContinuousClock.now
                guard let last = pacing.first?.double(0), let now = pacing.first?.double(1) else { return (0, readAt) }
                let wait = last + spacing - now
                guard wait <= 0 else { return (wait, readAt) }
                // The shortest gap between two POSTs let through, by the database's clock, for anyone to check.
                try connection.run(
                    """
                    UPDATE upstream_pacing SET last_sent = ?, last_start = GREATEST(last_start, ?),
                        shortest_gap = CASE WHEN last_sent > 0 THEN LEAST(COALESCE(shortest_gap, ?), ? - last_sent)
                                            ELSE shortest_gap END
                    WHERE carrier = ?
                    """, [.real(now), .real(now), .real(now), .real(now), .text(carrier)])
                return (0, readAt)
            } }
        }
    }

    public func release() async {
        guard let slot = held.withLock({ $0.popLast() }) else { return }
        let holder = self.holder
        await onQueue { [database, carrier, failures] in
            // Should this fail, the lease frees the slot later.
            _ = failures.reporting { try database.writeNow { connection -> Int in
                try connection.run(
                    "UPDATE upstream_slots SET holder = NULL, lease_until = 0 WHERE carrier = ? AND slot = ? AND holder = ?",
                    [.text(carrier), .integer(Int64(slot)), .text(holder)]
                ).count
            } }
        }
    }

    private func grant() async -> Grant {
        let (holder, slots, interval) = (self.holder, maxConcurrent, minimumInterval)
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        return await onQueue { [database, carrier, failures] in
            failures.reporting { try database.writeNow { connection -> Grant in
                    let pacing = try connection.run(
                        "SELECT last_start, extract(epoch FROM clock_timestamp()) FROM upstream_pacing WHERE carrier = ? FOR UPDATE",
                        [.text(carrier)])
                    guard let last = pacing.first?.double(0), let now = pacing.first?.double(1) else {
                        return .unreachable
                    }
                    let free = try connection.run(
                        """
                        SELECT slot FROM upstream_slots
                        WHERE carrier = ? AND slot <= ? AND (holder IS NULL OR lease_until < ?)
                        ORDER BY slot LIMIT 1 FOR UPDATE
                        """, [.text(carrier), .integer(Int64(slots)), .real(now)])
                    guard let slot = free.first?.int(0) else { return .busy }
                    let start = max(now, last + seconds)
                    try connection.run(
                        "UPDATE upstream_slots SET holder = ?, lease_until = ? WHERE carrier = ? AND slot = ?",
                        [.text(holder), .real(start + Self.lease), .text(carrier), .integer(Int64(slot))])
                    try connection.run(
                        "UPDATE upstream_pacing SET last_start = ? WHERE carrier = ?", [.real(start), .text(carrier)])
                    return .granted(slot: slot, wait: start - now)
                } } ?? .unreachable
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
