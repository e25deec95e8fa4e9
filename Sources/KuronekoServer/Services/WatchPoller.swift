import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Checks watched numbers when they are due, ten at a time at the scheduler's background priority: one
/// POST's worth in flight at most, so the poller uses at most one of the upstream's two POST slots (half
/// the budget) and an interactive lookup never waits behind a poll backlog for more than one POST. When
/// fewer than ten are due, the POST is filled, soonest first, with numbers asked at the same carrier whose
/// next check is within half their own interval (``fillFraction``): numbers checked together are due
/// together again (their intervals' ±10 % jitter is well inside the half), so they fall into step and stay
/// in step, and numbers of shorter intervals carry those of longer ones along; polls go out full at every
/// list size. No due number waits to fill a POST, and none is checked before half its interval, only ever
/// in a POST that goes out anyway. A half, not a quarter: at 40 watches a quarter left 0.127 POSTs per
/// polled number, a third 0.109, a half 0.100, with the fewest POSTs of the three (docs/BENCHMARKS.md).
public final class WatchPoller: Sendable {
    /// The share of the upstream budget the poller may use: one POST of ten numbers of two in flight.
    public static let budgetShare = 0.5
    public static let batch = BatchPlan.maximumBatchSize
    /// How early a number may be checked to fill a POST, as a share of its own interval.
    public static let fillFraction = 0.5
    /// How far ahead numbers are looked for to fill a POST, at poll speed 1: that share of the longest
    /// interval (6 h, a number not yet registered).
    public static let lookahead: TimeInterval = 6 * 3_600 * fillFraction
    /// How long a claimed number stays with this server, at poll speed 1: far longer than a check takes
    /// (a lookup's deadline and a POST's timeout), so only a server that died loses its claims. Never below
    /// ``minimumLease``, however fast the poll clock runs.
    public static let lease: TimeInterval = 300
    public static let minimumLease: TimeInterval = 5

    private let store: any WatchStore
    private let clock: any TrackingClock
    private let check: @Sendable (TrackingNumber, Carrier?) async -> Bool
    private let schedule: PollSchedule
    private let failures: StoreFailures
    private let counters = Mutex((checks: 0, failures: 0))

    /// - Parameter check: asks one number's carrier (`nil`: still to be found) about it (the answer is
    ///   recorded by whoever fetched it); false when it could not be answered.
    /// - Parameter failures: told of store calls that fail (logged and counted).
    public init(
        store: any WatchStore, clock: any TrackingClock, schedule: PollSchedule, failures: StoreFailures = StoreFailures(),
        check: @escaping @Sendable (TrackingNumber, Carrier?) async -> Bool
    ) {
        self.failures = failures
        self.store = store
        self.clock = clock
        self.schedule = schedule
        self.check = check
    }

    /// Checks made and failed so far.
    public var statistics: (checks: Int, failures: Int) { counters.withLock { $0 } }

    /// Checks the numbers due now, at most one batch. - Returns: how many were checked.
    @discardableResult
    public func pollOnce() async -> Int {
        let now = clock.now
        let lease = max(Self.minimumLease, Self.lease / schedule.speed)
        let horizon = now.addingTimeInterval(Self.lookahead / schedule.speed)
        let due: [DueCheck]
        do {
            due = try await store.claimDueChecks(
                now: now, horizon: horizon, fillFraction: Self.fillFraction, limit: Self.batch,
                leaseUntil: now.addingTimeInterval(lease))
        } catch {
            failures.report(.claimChecks, error)
            return 0
        }
        guard !due.isEmpty else { return 0 }
        let results = await withTaskGroup(of: (TrackingNumber, Bool).self) { group in
            for item in due { group.addTask { (item.number, await self.check(item.number, item.carrier)) } }
            var results: [(TrackingNumber, Bool)] = []
            for await result in group { results.append(result) }
            return results
        }
        let failed = results.filter { !$0.1 }.map(\.0)
        counters.withLock {
            $0.checks += results.count
            $0.failures += failed.count
        }
        // A failed check is tried again after a quarter of the shortest interval, not at once.
        let retryAt = now.addingTimeInterval(150 / schedule.speed)
        for number in failed {
            do {
                try await store.postpone(number, until: retryAt)
            } catch {
                // Left due: the next tick claims it again.
                failures.report(.postpone, error, context: ["number": "\(number.masked)"])
            }
        }
        return results.count
    }

    /// Polls until the task is cancelled, looking for due work every `tick` when there was none.
    public func run(tick: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            if await pollOnce() == 0 {
                try? await clock.sleep(until: clock.uptime + tick)
            }
        }
    }
}
