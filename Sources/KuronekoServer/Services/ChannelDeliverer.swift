import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Sends the channels' queued announcements and records every attempt: delivered; held until the end of
/// the channel's quiet hours (all but urgent ones: the kinds the owner marked, else exceptions, arriving
/// soon and out for delivery); ended for good when the service answers 404 or 410 (a
/// push subscription gone); sent again at once shortened after a 413; retried after the service's
/// `Retry-After` (429, 503), else with backoff, given up 24 hours after the announcement. One channel's
/// announcements go in order; a slow channel holds up only its own (``OutboxDeliverer`` runs the attempts). Every attempt is told to `log` as one line:
/// `channel id=3 kind=web_push announcement=changed attempt=1 status=201 result=delivered` (`result` one of
/// delivered, retry, given_up, ended, held).
public final class ChannelDeliverer: OutboxLane {
    /// How e-mail goes out: the sender and the envelope's `From`.
    public struct Mail: Sendable {
        public let sender: any MailSender
        public let from: MailAddress

        public init(sender: any MailSender, from: MailAddress) {
            self.sender = sender
            self.from = from
        }
    }

    private let store: any WatchStore
    private let sender: any ChannelSender
    private let mail: Mail?
    private let clock: any TrackingClock
    private let vapid: VAPID?
    private let publicURL: URL?
    private let retry = DeliveryRetryPolicy()
    private let random: @Sendable () -> Double
    private let busy = Mutex(Set<Int64>())
    private let counters = Mutex((delivered: 0, failedAttempts: 0, held: 0))
    public let concurrency = 16
    /// How long a claimed announcement stays with this server.
    private let lease: TimeInterval
    private let log: (@Sendable (String) -> Void)?
    private let failures: StoreFailures

    public init(
        store: any WatchStore, sender: any ChannelSender, mail: Mail? = nil, clock: any TrackingClock, vapid: VAPID?,
        publicURL: URL?, lease: TimeInterval = 60, failures: StoreFailures = StoreFailures(),
        log: (@Sendable (String) -> Void)? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.failures = failures
        self.log = log
        self.store = store
        self.sender = sender
        self.mail = mail
        self.clock = clock
        self.vapid = vapid
        self.publicURL = publicURL
        self.lease = lease
        self.random = random
    }

    public var statistics: (delivered: Int, failedAttempts: Int, held: Int) { counters.withLock { $0 } }

    /// Claims the oldest due announcement of each channel with no attempt in flight, at most `limit`.
    private func claim(limit: Int) async -> [PendingChannelDelivery] {
        let now = clock.now
        let excluded = busy.withLock { $0 }
        let free = min(limit, concurrency - excluded.count)
        guard free > 0 else { return [] }
        let due: [PendingChannelDelivery]
        do {
            due = try await store.claimChannelDeliveries(
                at: now, limit: free, leaseUntil: now.addingTimeInterval(lease), excludingChannels: excluded)
        } catch {
            failures.report(.claimChannelDeliveries, error)
            return []
        }
        busy.withLock { busy in for delivery in due { busy.insert(delivery.channel.id) } }
        return due
    }

    public func claimAttempts(limit: Int) async -> [OutboxAttempt] {
        await claim(limit: limit).map { delivery in OutboxAttempt { await self.attempt(delivery) } }
    }

    /// Sends what is due now and waits for those attempts (one step, for tests and tools; the server runs
    /// every lane through ``OutboxDeliverer``). - Returns: how many were tried.
    @discardableResult
    public func deliverOnce() async -> Int {
        let due = await claim(limit: concurrency)
        await withTaskGroup(of: Void.self) { group in
            for delivery in due { group.addTask { await self.attempt(delivery) } }
        }
        return due.count
    }

    private func attempt(_ delivery: PendingChannelDelivery) async {
        defer { _ = busy.withLock { $0.remove(delivery.channel.id) } }
        let started = clock.now
        guard let settings = try? JSONDecoder().decode(ChannelSettings.self, from: delivery.channel.destination),
            let destination = settings.destination(kind: delivery.channel.kind),
            let shipment = try? JSONDecoder().decode(Shipment.self, from: delivery.shipment)
        else {
            return await finish(
                delivery, DeliveryOutcome(status: nil, error: "the channel's settings cannot be read"), retryAt: nil,
                at: started, milliseconds: 0)
        }
        let announcement = Announcement(
            kind: delivery.kind, shipment: shipment, label: delivery.label,
            language: delivery.channel.language == "en" ? .english : .japanese, publicURL: publicURL)
        let urgent = settings.urgent.map { $0.contains(delivery.kind.rawValue) } ?? announcement.urgent
        if !urgent, let quiet = delivery.channel.quietHours.flatMap(QuietHours.init),
            let end = quiet.end(after: started)
        {
            counters.withLock { $0.held += 1 }
            do {
                try await store.recordChannelAttempt(
                    delivery.outboxID, at: started, status: nil, error: "held for the channel's quiet hours",
                    durationMilliseconds: 0, delivered: false, retryAt: end)
            } catch {
                failures.report(.recordChannelAttempt, error, context: "channel=\(delivery.channel.id)")
            }
            tell(delivery, status: nil, result: "held")
            return
        }
        var outcome = await send(destination, announcement, at: started, shortened: false)
        if outcome.status == 413 { outcome = await send(destination, announcement, at: clock.now, shortened: true) }
        let ended = clock.now
        let milliseconds = max(0, ended.timeIntervalSince(started) * 1000)
        if outcome.status == 404 || outcome.status == 410 {
            let reason = "the service answered \(outcome.status ?? 0): the channel is gone"
            await finish(delivery, outcome, retryAt: nil, at: ended, milliseconds: milliseconds, result: "ended")
            do {
                try await store.endChannel(delivery.channel.id, at: ended, reason: reason)
            } catch {
                failures.report(.endChannel, error, context: "channel=\(delivery.channel.id)")
            }
            return
        }
        var retryAt: Date?
        if !outcome.delivered {
            retryAt = retry.retry(
                after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
            if let advice = outcome.retryAfter, let planned = retryAt {
                retryAt = max(planned, ended.addingTimeInterval(min(advice, 3_600)))
            }
        }
        await finish(delivery, outcome, retryAt: retryAt, at: ended, milliseconds: milliseconds)
    }

    private func send(_ destination: ChannelDestination, _ announcement: Announcement, at now: Date, shortened: Bool)
        async -> DeliveryOutcome
    {
        if case .email(let address) = destination {
            guard let mail else {
                return DeliveryOutcome(status: nil, error: "this server sends no e-mail (it has no --smtp-url)")
            }
            return await mail.sender.send(MailMessage(announcement, from: mail.from, to: address, date: now))
        }
        do {
            let request = try ChannelRequests.request(
                for: destination, announcement, vapid: vapid, now: now, shortened: shortened)
            return await sender.send(request)
        } catch {
            return DeliveryOutcome(status: nil, error: "the message could not be made: \(error)")
        }
    }

    private func finish(
        _ delivery: PendingChannelDelivery, _ outcome: DeliveryOutcome, retryAt: Date?, at: Date, milliseconds: Double,
        result: String? = nil
    ) async {
        // Should recording fail, the announcement stays pending and is claimed again after its lease.
        do {
            try await store.recordChannelAttempt(
                delivery.outboxID, at: at, status: outcome.status, error: outcome.error,
                durationMilliseconds: milliseconds, delivered: outcome.delivered, retryAt: retryAt)
        } catch {
            failures.report(.recordChannelAttempt, error, context: "channel=\(delivery.channel.id)")
        }
        counters.withLock { outcome.delivered ? ($0.delivered += 1) : ($0.failedAttempts += 1) }
        tell(
            delivery, status: outcome.status,
            result: result ?? (outcome.delivered ? "delivered" : retryAt == nil ? "given_up" : "retry"))
    }

    /// One line for the log, after the attempt is recorded (so a reader of the log can read the record).
    private func tell(_ delivery: PendingChannelDelivery, status: Int?, result: String) {
        log?(
            "channel id=\(delivery.channel.id) kind=\(delivery.channel.kind) "
                + "announcement=\(delivery.kind.rawValue) attempt=\(delivery.attempts + 1) "
                + "status=\(status.map(String.init) ?? "-") result=\(result)")
    }
}
