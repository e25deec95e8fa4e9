import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Sends the outbox's due deliveries, signed, and records every attempt: delivered, retried later with
/// backoff, or given up 24 hours after the change. Attempts are independent: up to ``concurrency`` go out at
/// once, each as soon as a slot is free, so a slow or hanging receiver holds only its own watch's queue (one
/// slot, for at most the sender's deadline per attempt) while every other watch's deliveries go out on time.
/// A receiver that answers 410 Gone ends its subscription: recorded on the watch, its pending deliveries
/// given up, nothing posted to it again. Any other failure (another status, no answer in time) is retried
/// with backoff.
public final class WebhookDeliverer: OutboxLane {
    private let store: any WatchStore
    private let sender: any WebhookSender
    private let clock: any TrackingClock
    private let retry: DeliveryRetryPolicy
    private let random: @Sendable () -> Double
    private let log: Logger?
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
        failures: StoreFailures = StoreFailures(), log: Logger? = nil
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

    public func claimAttempts(limit: Int) async -> [OutboxAttempt] {
        await claim(limit: limit).map { delivery in OutboxAttempt { await self.attempt(delivery) } }
    }

    /// Sends what is due now and waits for those attempts (one step, for tests and tools; the server runs
    /// every lane through ``OutboxDeliverer``). - Returns: how many were tried.
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
            failures.report(.recordAttempt, error, context: ["change": "\(delivery.change.id)"])
        }
        if gone {
            do {
                try await store.endSubscription(
                    ofDelivery: delivery.outboxID, at: ended, reason: "the receiver answered 410 Gone")
            } catch {
                failures.report(.endSubscription, error, context: ["change": "\(delivery.change.id)"])
            }
        }
        let result = outcome.delivered ? "delivered" : gone ? "ended" : retryAt == nil ? "given_up" : "retry"
        log?.info(
            "webhook",
            metadata: [
                "change": .string(delivery.change.id), "attempt": .stringConvertible(delivery.attempts + 1),
                "status": EventFields.status(outcome.status), "result": .string(result),
            ])
        counters.withLock {
            if outcome.delivered {
                $0.delivered += 1
            } else {
                $0.failedAttempts += 1
                if retryAt == nil { $0.givenUp += 1 }
            }
        }
    }
}
