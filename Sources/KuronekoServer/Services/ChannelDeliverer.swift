import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization
import KuronekoCrypto

/// Sends the channels' queued announcements and records every attempt: delivered; held until the end of
/// the channel's quiet hours (all but urgent ones: the kinds the owner marked, else exceptions, arriving
/// soon and out for delivery); otherwise as the channel's kind reads its service's answer
/// (``ChannelVerdict``): ended for good (a push subscription's 404 or 410); sent again at once shortened
/// (413 from a push service); failing (a user's own URL answering 404, LINE refusing a token), shown on the
/// channel and paused once it has failed for 24 hours; held until a date (LINE's monthly limit); retried
/// after the service's `Retry-After` (429, 503), else with backoff, given up 24 hours after the announcement. One channel's
/// announcements go in order; a slow channel holds up only its own (``OutboxDeliverer`` runs the attempts). Every attempt is told to `log` as one line:
/// `channel id=3 kind=web_push announcement=changed attempt=1 status=201 result=delivered` (`result` one of
/// delivered, retry, given_up, ended, paused, held).
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

    let store: any WatchStore
    let sender: any ChannelSender
    private let mail: Mail?
    let clock: any TrackingClock
    private let vapid: VAPID?
    private let publicURL: URL?
    /// The kinds this server sends, and the operator's settings for them.
    let offer: ChannelOffer
    private let retry = DeliveryRetryPolicy()
    private let random: @Sendable () -> Double
    private let busy = Mutex(Set<Int64>())
    private let counters = Mutex((delivered: 0, failedAttempts: 0, held: 0))
    public let concurrency = 16
    /// How long a claimed announcement stays with this server.
    private let lease: TimeInterval
    let log: Logger?
    let failures: StoreFailures

    public init(
        store: any WatchStore, sender: any ChannelSender, mail: Mail? = nil, clock: any TrackingClock, vapid: VAPID?,
        publicURL: URL?, offer: ChannelOffer = ChannelOffer(), lease: TimeInterval = 60,
        failures: StoreFailures = StoreFailures(),
        log: Logger? = nil,
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
        self.offer = offer
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

    /// How long a channel may keep failing before it is paused.
    public static let pauseAfter: TimeInterval = 86_400

    private func attempt(_ delivery: PendingChannelDelivery) async {
        defer { _ = busy.withLock { $0.remove(delivery.channel.id) } }
        let started = clock.now
        let channel = delivery.channel
        guard let kind = offer.kinds.named(channel.kind), let announcement = announcement(of: delivery)
        else {
            return await finish(
                [delivery], DeliveryOutcome(status: nil, error: "the channel's kind or announcement cannot be read"), retryAt: nil,
                at: started, milliseconds: 0)
        }
        let urgent =
            ChannelDestination.urgent(in: channel.destination).map { $0.contains(delivery.kind.rawValue) }
            ?? announcement.urgent
        if !urgent, let quiet = channel.quietHours.flatMap(QuietHours.init), let end = quiet.end(after: started) {
            return await hold(delivery, until: end, because: "held for the channel's quiet hours", at: started)
        }
        let before = ChannelState.decode(channel.state)
        var state = before
        var covering = [delivery]
        var message = ChannelAnnouncement(announcement)
        if let line = kind as? LineChannel, let settings = line.storedSettings(channel.destination) {
            switch await budget(delivery, settings: settings, state: &state, announcement: announcement, at: started) {
            case .send(let digest, let covered):
                message = digest
                covering = covered
            case .hold(let until, let reason):
                await save(state, of: channel, unless: before)
                return await hold(delivery, until: until, because: reason, at: started)
            }
        }
        let key = Self.retryKey(channel: channel.id, outbox: covering.map(\.outboxID))
        var outcome = await send(kind, message, channel: channel, key: key, at: started, shortened: false)
        var verdict = kind.verdict(of: outcome, at: clock.now)
        if verdict == .shorten {
            outcome = await send(kind, message, channel: channel, key: key, at: clock.now, shortened: true)
            verdict = kind.verdict(of: outcome, at: clock.now)
        }
        let ended = clock.now
        let milliseconds = max(0, ended.timeIntervalSince(started) * 1000)
        switch verdict {
        case .delivered:
            state.problem = nil
            state.failingSince = nil
            if let line = kind as? LineChannel, let settings = line.storedSettings(channel.destination) {
                state.countSent(cost: LineChannel.cost(of: settings, friends: state.quota?.friends))
            }
            await save(state, of: channel, unless: before)
            // A 409 from LINE whose retry key was accepted before is a delivery too.
            let success = DeliveryOutcome(status: outcome.status, error: nil)
            await finish(covering, success, retryAt: nil, at: ended, milliseconds: milliseconds, delivered: true)
        case .ended(let reason):
            await finish([delivery], outcome, retryAt: nil, at: ended, milliseconds: milliseconds, result: "ended")
            await end(channel, reason: reason, at: ended)
        case .held(let until, let reason):
            state.heldUntil = until
            state.problem = reason
            await save(state, of: channel, unless: before)
            let held = DeliveryOutcome(status: outcome.status, error: reason)
            await finish([delivery], held, retryAt: until, at: ended, milliseconds: milliseconds, result: "held")
        case .failing(let reason):
            state.problem = reason
            let since = state.failingSince ?? ended
            state.failingSince = since
            await save(state, of: channel, unless: before)
            let failing = DeliveryOutcome(status: outcome.status, error: reason)
            if ended.timeIntervalSince(since) >= Self.pauseAfter {
                await finish([delivery], failing, retryAt: nil, at: ended, milliseconds: milliseconds, result: "paused")
                await end(channel, reason: "paused after failing for 24 hours: \(reason)", at: ended)
                log?.warning(
                    "channel paused after failing for 24 hours: \(reason)",
                    metadata: ["id": .stringConvertible(channel.id), "kind": .string(channel.kind)])
                return
            }
            let retryAt = retry.retry(
                after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
            await finish([delivery], failing, retryAt: retryAt, at: ended, milliseconds: milliseconds)
        case .retry(let advice):
            var retryAt = retry.retry(
                after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
            if let advice, let planned = retryAt {
                retryAt = max(planned, ended.addingTimeInterval(min(advice, 3_600)))
            }
            await finish([delivery], outcome, retryAt: retryAt, at: ended, milliseconds: milliseconds)
        case .shorten:
            let retryAt = retry.retry(
                after: delivery.attempts + 1, createdAt: delivery.createdAt, now: ended, random: random())
            await finish([delivery], outcome, retryAt: retryAt, at: ended, milliseconds: milliseconds)
        }
    }

    /// The announcement of a delivery in its channel's language, or `nil` when its shipment cannot be read.
    func announcement(of delivery: PendingChannelDelivery) -> Announcement? {
        let language: AnnouncementLanguage = delivery.channel.language == "en" ? .english : .japanese
        if delivery.kind == .morningSummary {
            return MorningSummary.decode(delivery.shipment).map {
                Announcement(summary: $0, language: language, publicURL: publicURL)
            }
        }
        if delivery.kind == .mailboxFailing || delivery.kind == .mailboxRestored {
            return MailboxNotice.decode(delivery.shipment).map {
                Announcement(mailbox: $0, language: language, publicURL: publicURL)
            }
        }
        if delivery.kind.isForOperator {
            return CarrierPageNotice.decode(delivery.shipment).map {
                Announcement(page: $0, language: language, publicURL: publicURL)
            }
        }
        guard let shipment = try? JSONDecoder().decode(Shipment.self, from: delivery.shipment) else { return nil }
        return Announcement(
            kind: delivery.kind, shipment: shipment, label: delivery.label,
            language: delivery.channel.language == "en" ? .english : .japanese, publicURL: publicURL)
    }

    /// A retry key for LINE (a UUID) that is the same for every attempt at the same outbox entries.
    static func retryKey(channel: Int64, outbox: [Int64]) -> String {
        let digest = Array(Secrets.sha256("kuroneko-channel:\(channel):" + outbox.map(String.init).joined(separator: ",")))
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20)]
        return parts.map(String.init).joined(separator: "-")
    }

    private func hold(_ delivery: PendingChannelDelivery, until: Date, because reason: String, at now: Date) async {
        counters.withLock { $0.held += 1 }
        do {
            try await store.recordChannelAttempt(
                delivery.outboxID, at: now, status: nil, error: reason, durationMilliseconds: 0, delivered: false,
                retryAt: until)
        } catch {
            failures.report(.recordChannelAttempt, error, context: ["channel": "\(delivery.channel.id)"])
        }
        tell(delivery, status: nil, result: "held")
    }

    func save(_ state: ChannelState, of channel: ChannelRecord, unless before: ChannelState) async {
        guard state != before else { return }
        do {
            try await store.setChannelState(channel.id, state.encoded)
        } catch {
            failures.report(.recordChannelAttempt, error, context: ["channel": "\(channel.id)"])
        }
    }

    private func end(_ channel: ChannelRecord, reason: String, at: Date) async {
        do {
            try await store.endChannel(channel.id, at: at, reason: reason)
        } catch {
            failures.report(.endChannel, error, context: ["channel": "\(channel.id)"])
        }
    }

    /// One request of `kind` (HTTP through the guarded client, e-mail through the SMTP server).
    func send(
        _ kind: any ChannelKind, _ message: ChannelAnnouncement, channel: ChannelRecord,
        key: String, at now: Date, shortened: Bool
    ) async -> DeliveryOutcome {
        let context = ChannelContext(
            vapid: vapid, now: now, shortened: shortened, serverSettings: offer.server.settings(for: kind), retryKey: key)
        let made: ChannelMessage
        do {
            made = try kind.message(for: message, destination: channel.destination, context: context)
        } catch {
            return DeliveryOutcome(status: nil, error: "the message could not be made: \(error)")
        }
        switch made {
        case .http(let request):
            return await sender.send(request)
        case .mail(let address):
            guard let mail else {
                return DeliveryOutcome(status: nil, error: "this server sends no e-mail (it has no --smtp-url)")
            }
            return await mail.sender.send(MailMessage(message.first, from: mail.from, to: address, date: now))
        }
    }

    /// Records the attempt for each announcement it covered (several for a digest).
    private func finish(
        _ deliveries: [PendingChannelDelivery], _ outcome: DeliveryOutcome, retryAt: Date?, at: Date,
        milliseconds: Double, result: String? = nil, delivered: Bool? = nil
    ) async {
        let delivered = delivered ?? outcome.delivered
        for delivery in deliveries {
            // Should recording fail, the announcement stays pending and is claimed again after its lease.
            do {
                try await store.recordChannelAttempt(
                    delivery.outboxID, at: at, status: outcome.status, error: outcome.error,
                    durationMilliseconds: milliseconds, delivered: delivered, retryAt: retryAt)
            } catch {
                failures.report(.recordChannelAttempt, error, context: ["channel": "\(delivery.channel.id)"])
            }
            counters.withLock { delivered ? ($0.delivered += 1) : ($0.failedAttempts += 1) }
            tell(
                delivery, status: outcome.status,
                result: result ?? (delivered ? "delivered" : retryAt == nil ? "given_up" : "retry"))
        }
    }

    /// One line for the log, after the attempt is recorded (so a reader of the log can read the record).
    private func tell(_ delivery: PendingChannelDelivery, status: Int?, result: String) {
        log?.info(
            "channel",
            metadata: [
                "id": .stringConvertible(delivery.channel.id), "kind": .string(delivery.channel.kind),
                "announcement": .string(delivery.kind.rawValue), "attempt": .stringConvertible(delivery.attempts + 1),
                "status": EventFields.status(status), "result": .string(result),
            ])
    }
}
