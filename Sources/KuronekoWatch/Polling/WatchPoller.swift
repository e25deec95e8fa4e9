import Foundation
import Kuroneko
import Synchronization

/// Checks watched numbers when they are due, ten at a time at the scheduler's background priority: one
/// POST's worth in flight at most, so the poller uses at most one of the upstream's two POST slots (half
/// the budget) and an interactive lookup never waits behind a poll backlog for more than one POST. A POST
/// is filled with numbers due within the next two minutes (divided by the poll speed) when fewer than ten
/// are due now, so polls go out as full POSTs: a number is then checked at most that much early.
public final class WatchPoller: Sendable {
    /// The share of the upstream budget the poller may use: one POST of ten numbers of two in flight.
    public static let budgetShare = 0.5
    public static let batch = BatchPlan.maximumBatchSize
    /// How early a number may be checked to fill a POST, at poll speed 1.
    public static let lookahead: TimeInterval = 120
    /// How long a claimed number stays with this server, at poll speed 1: far longer than a check takes
    /// (a lookup's deadline and a POST's timeout), so only a server that died loses its claims. Never below
    /// ``minimumLease``, however fast the poll clock runs.
    public static let lease: TimeInterval = 300
    public static let minimumLease: TimeInterval = 5

    private let store: any WatchStore
    private let clock: any TrackingClock
    private let check: @Sendable (TrackingNumber) async -> Bool
    private let schedule: PollSchedule
    private let counters = Mutex((checks: 0, failures: 0))

    /// - Parameter check: asks Yamato for one number (the answer is recorded by whoever fetched it); false
    ///   when it could not be answered.
    public init(
        store: any WatchStore, clock: any TrackingClock, schedule: PollSchedule,
        check: @escaping @Sendable (TrackingNumber) async -> Bool
    ) {
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
        guard
            let due = try? store.claimDue(
                now: now, horizon: now.addingTimeInterval(Self.lookahead / schedule.speed), limit: Self.batch,
                leaseUntil: now.addingTimeInterval(lease)),
            !due.isEmpty
        else { return 0 }
        let results = await withTaskGroup(of: (TrackingNumber, Bool).self) { group in
            for number in due { group.addTask { (number, await self.check(number)) } }
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
        for number in failed {
            try? store.postpone(number, until: now.addingTimeInterval(150 / schedule.speed))
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
/// backoff, or given up 24 hours after the change.
public final class WebhookDeliverer: Sendable {
    private let store: any WatchStore
    private let sender: any WebhookSender
    private let clock: any TrackingClock
    private let retry: DeliveryRetryPolicy
    private let random: @Sendable () -> Double
    private let log: (@Sendable (String) -> Void)?
    private let counters = Mutex((delivered: 0, failedAttempts: 0, givenUp: 0))
    /// How long a claimed delivery stays with this server by default: six times an attempt's timeout.
    public static let defaultLease: TimeInterval = 60
    private let lease: TimeInterval

    /// - Parameter log: told of every attempt, one line: `webhook change=… attempt=2 status=204 result=delivered`.
    public init(
        store: any WatchStore, sender: any WebhookSender, clock: any TrackingClock,
        retry: DeliveryRetryPolicy = DeliveryRetryPolicy(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        lease: TimeInterval = WebhookDeliverer.defaultLease, log: (@Sendable (String) -> Void)? = nil
    ) {
        self.lease = lease
        self.store = store
        self.sender = sender
        self.clock = clock
        self.retry = retry
        self.random = random
        self.log = log
    }

    public var statistics: (delivered: Int, failedAttempts: Int, givenUp: Int) { counters.withLock { $0 } }

    /// Sends what is due now (the oldest pending delivery of each webhook). - Returns: how many were tried.
    @discardableResult
    public func deliverOnce(limit: Int = 16) async -> Int {
        let now = clock.now
        guard
            let due = try? store.claimDeliveries(
                at: now, limit: limit, leaseUntil: now.addingTimeInterval(lease)),
            !due.isEmpty
        else { return 0 }
        await withTaskGroup(of: Void.self) { group in
            for delivery in due {
                group.addTask { await self.attempt(delivery) }
            }
        }
        return due.count
    }

    private func attempt(_ delivery: PendingDelivery) async {
        let body = WebhookPayload.body(for: delivery.change)
        let started = clock.now
        let signature = WebhookPayload.signature(of: body, secret: delivery.secret, at: started)
        let outcome = await sender.send(body, signature: signature, to: delivery.url)
        let ended = clock.now
        let milliseconds = max(0, ended.timeIntervalSince(started) * 1000)
        let retryAt =
            outcome.delivered
            ? nil
            : retry.retry(after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
        try? store.recordAttempt(
            delivery.outboxID, at: ended, status: outcome.status, error: outcome.error,
            durationMilliseconds: milliseconds, delivered: outcome.delivered, retryAt: retryAt)
        let result = outcome.delivered ? "delivered" : retryAt == nil ? "given_up" : "retry"
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

    /// Delivers until the task is cancelled, looking for due work every `tick` when there was none.
    public func run(tick: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            if await deliverOnce() == 0 {
                try? await clock.sleep(until: clock.uptime + tick)
            }
        }
    }
}
