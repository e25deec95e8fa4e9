import Foundation
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
                failures.report(.postpone, error, context: "number=\(number.masked)")
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

/// Sends the outbox's due deliveries, signed, and records every attempt: delivered, retried later with
/// backoff, or given up 24 hours after the change. Attempts are independent: up to ``concurrency`` go out at
/// once, each as soon as a slot is free, so a slow or hanging receiver holds only its own watch's queue (one
/// slot, for at most the sender's deadline per attempt) while every other watch's deliveries go out on time.
/// A receiver that answers 410 Gone ends its subscription: recorded on the watch, its pending deliveries
/// given up, nothing posted to it again. Any other failure (another status, no answer in time) is retried
/// with backoff.
public final class WebhookDeliverer: Sendable {
    private let store: any WatchStore
    private let sender: any WebhookSender
    private let clock: any TrackingClock
    private let retry: DeliveryRetryPolicy
    private let random: @Sendable () -> Double
    private let log: (@Sendable (String) -> Void)?
    private let failures: StoreFailures
    private let counters = Mutex((delivered: 0, failedAttempts: 0, givenUp: 0))
    /// Watches whose delivery is being attempted now.
    private let busy = Mutex(Set<Int64>())
    /// How long a claimed delivery stays with this server by default: six times an attempt's timeout.
    public static let defaultLease: TimeInterval = 60
    /// Attempts in flight at most, by default.
    public static let defaultConcurrency = 16
    private let lease: TimeInterval
    public let concurrency: Int

    /// - Parameter log: told of every attempt, one line: `webhook change=… attempt=2 status=204 result=delivered`.
    public init(
        store: any WatchStore, sender: any WebhookSender, clock: any TrackingClock,
        retry: DeliveryRetryPolicy = DeliveryRetryPolicy(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        lease: TimeInterval = WebhookDeliverer.defaultLease, concurrency: Int = WebhookDeliverer.defaultConcurrency,
        failures: StoreFailures = StoreFailures(), log: (@Sendable (String) -> Void)? = nil
    ) {
        self.failures = failures
        self.lease = lease
        self.store = store
        self.sender = sender
        self.clock = clock
        self.retry = retry
        self.random = random
        self.log = log
        self.concurrency = max(1, concurrency)
    }

    public var statistics: (delivered: Int, failedAttempts: Int, givenUp: Int) { counters.withLock { $0 } }

    /// Attempts in flight now.
    public var inFlight: Int { busy.withLock { $0.count } }

    /// Claims what is due now (the oldest pending delivery of each webhook not already being attempted),
    /// at most as many as there are free slots, and marks their watches busy.
    private func claim(limit: Int) async -> [PendingDelivery] {
        let now = clock.now
        let excluded = busy.withLock { $0 }
        let free = min(limit, concurrency - excluded.count)
        let leaseUntil = now.addingTimeInterval(lease)
        guard free > 0 else { return [] }
        let due: [PendingDelivery]
        do {
            due = try await store.claimDeliveries(
                at: now, limit: free, leaseUntil: leaseUntil, excludingWatches: excluded)
        } catch {
            failures.report(.claimDeliveries, error)
            return []
        }
        busy.withLock { busy in
            for delivery in due { busy.insert(delivery.change.watchID) }
        }
        return due
    }

    /// Sends what is due now and waits for those attempts. - Returns: how many were tried.
    @discardableResult
    public func deliverOnce(limit: Int = 16) async -> Int {
        let due = await claim(limit: limit)
        await withTaskGroup(of: Void.self) { group in
            for delivery in due {
                group.addTask { await self.attempt(delivery) }
            }
        }
        return due.count
    }

    private func attempt(_ delivery: PendingDelivery) async {
        defer { _ = busy.withLock { $0.remove(delivery.change.watchID) } }
        let body = WebhookPayload.body(for: delivery.change)
        let started = clock.now
        let signature = WebhookPayload.signature(of: body, secret: delivery.secret, at: started)
        var outcome = await sender.send(body, signature: signature, to: delivery.url)
        let ended = clock.now
        let milliseconds = max(0, ended.timeIntervalSince(started) * 1000)
        let gone = outcome.status == 410
        if gone {
            outcome = DeliveryOutcome(
                status: 410, error: "the receiver answered 410 Gone: the webhook is ended and nothing more is sent")
        }
        let retryAt =
            outcome.delivered || gone
            ? nil
            : retry.retry(after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
        // Should recording fail, the delivery stays pending: claimed again once its lease runs out (a server
        // alone: at its next claim), and sent again; receivers drop duplicates by the change's id.
        do {
            try await store.recordAttempt(
                delivery.outboxID, at: ended, status: outcome.status, error: outcome.error,
                durationMilliseconds: milliseconds, delivered: outcome.delivered, retryAt: retryAt)
        } catch {
            failures.report(.recordAttempt, error, context: "change=\(delivery.change.id)")
        }
        if gone {
            do {
                try await store.endSubscription(
                    ofDelivery: delivery.outboxID, at: ended, reason: "the receiver answered 410 Gone")
            } catch {
                failures.report(.endSubscription, error, context: "change=\(delivery.change.id)")
            }
        }
        let result = outcome.delivered ? "delivered" : gone ? "ended" : retryAt == nil ? "given_up" : "retry"
        log?(
            "webhook change=\(delivery.change.id) attempt=\(delivery.attempts + 1) "
                + "status=\(outcome.status.map(String.init) ?? "-") result=\(result)")
        counters.withLock {
            if outcome.delivered {
                $0.delivered += 1
            } else {
                $0.failedAttempts += 1
                if retryAt == nil { $0.givenUp += 1 }
            }
        }
    }

    /// Delivers until the task is cancelled: whenever a slot is free, claims what is due and starts each
    /// attempt on its own; looks again every `tick`, or as soon as an attempt ends. Waits for the attempts in
    /// flight before returning.
    public func run(tick: Duration = .seconds(1)) async {
        // Each child says whether it was an attempt (true) or the tick (false).
        await withTaskGroup(of: Bool.self) { group in
            var running = 0
            var tickPending = false
            while !Task.isCancelled {
                let due = await claim(limit: concurrency)
                for delivery in due {
                    running += 1
                    group.addTask {
                        await self.attempt(delivery)
                        return true
                    }
                }
                if !due.isEmpty, running < concurrency { continue }
                guard running > 0 else {
                    try? await clock.sleep(until: clock.uptime + tick)
                    continue
                }
                if !tickPending {
                    tickPending = true
                    let clock = self.clock
                    group.addTask {
                        try? await clock.sleep(until: clock.uptime + tick)
                        return false
                    }
                }
                switch await group.next() {
                case true?: running -= 1
                case false?: tickPending = false
                case nil: break
                }
            }
        }
    }
}
