import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// What customer notices need from the server: the SMTP sender and its address, where the stop link points,
/// and the key that signs it.
public struct CustomerNoticeMail: Sendable {
    public let sender: any MailSender
    public let from: MailAddress
    /// `--public-url`: the stop link is `<public>/notices/stop?t=…`.
    public let publicURL: URL
    public let stopKey: String

    public init(sender: any MailSender, from: MailAddress, publicURL: URL, stopKey: String) {
        self.sender = sender
        self.from = from
        self.publicURL = publicURL
        self.stopKey = stopKey
    }

    public func stopLink(owner: String, address: String) -> URL {
        var components = URLComponents(url: publicURL.appendingPathComponent("notices/stop"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "t", value: NoticeStop.token(owner: owner, address: address, key: stopKey))]
        return components?.url ?? publicURL
    }

    /// `<notice-ID.WATCH@domain>`: the same for every attempt of one notice.
    public func messageID(notice id: Int64, watch: Int64?) -> String {
        let domain = from.text.split(separator: "@").last.map(String.init) ?? "kuroneko"
        return "<notice-\(id).\(watch ?? 0)@\(domain)>"
    }

    /// The notice as it is sent (and previewed): the same bytes for every attempt.
    public func render(_ notice: CustomerNoticeRecord, settings: NoticeSettings) -> RenderedNotice? {
        guard let shipment = try? JSONDecoder().decode(Shipment.self, from: notice.shipment),
            let address = try? MailAddress(parsing: notice.address)
        else { return nil }
        let draft = CustomerNoticeDraft(
            milestone: notice.milestone, shipment: shipment, recipientName: notice.recipientName,
            reference: notice.reference, address: address, stopLink: stopLink(owner: notice.owner, address: notice.address),
            messageID: messageID(notice: notice.id, watch: notice.watchID), date: notice.createdAt)
        return CustomerNoticeRenderer.render(draft, settings: settings, from: from)
    }
}

extension CustomerNoticeMail {
    /// The notice of `watch` at `milestone` a preview shows: the one queued (as it is sent), else one made from the
    /// parcel's latest answer (to the record's address, or an example one); `nil` before any answer.
    public static func notice(for watch: Watch, milestone: CustomerMilestone, store: any WatchStore, now: Date)
        async throws -> (CustomerNoticeRecord, queued: Bool)?
    {
        if let queued = try await store.customerNotices(watchID: watch.id, owner: watch.owner)
            .first(where: { $0.milestone == milestone && $0.state != "skipped" })
        {
            return (queued, true)
        }
        guard let latest = watch.latest else { return nil }
        let notice = CustomerNoticeRecord(
            id: 0, watchID: watch.id, owner: watch.owner.id, number: watch.number.digits, milestone: milestone,
            address: watch.record?.recipient?.email ?? "recipient@example.jp", recipientName: watch.record?.recipient?.name,
            reference: watch.record?.reference, shipment: latest.json, state: "preview", attempts: 0, createdAt: now,
            finishedAt: nil, status: nil, error: nil)
        return (notice, false)
    }
}

/// A rate of sending: at most `perSecond` on average, `burst` at once (a token bucket on the uptime clock).
public struct SendingRate: Sendable {
    public let perSecond: Double
    public let burst: Double
    private var tokens: Double
    private var last: Duration?

    public init(perSecond: Double) {
        self.perSecond = max(0.01, perSecond)
        burst = max(1, perSecond)
        tokens = burst
    }

    /// How many may go now.
    public mutating func available(at now: Duration) -> Int {
        if let last {
            let elapsed = Double((now - last).components.seconds) + Double((now - last).components.attoseconds) / 1e18
            tokens = min(burst, tokens + max(0, elapsed) * perSecond)
        }
        last = now
        return Int(tokens.rounded(.down))
    }

    public mutating func take(_ count: Int) {
        tokens = max(0, tokens - Double(count))
    }
}

/// Sends the customer notices queued for parcels' recipients, at the operator's rate, each parcel's in order:
/// an address on the stop list (or the shop's notices turned off) ends the notice unsent; the SMTP server's
/// 2xx sends it, a 5xx refuses it for good (the address goes on the stop list as refused, shown on the
/// parcel), anything else is tried again with backoff for a day. A crash between the SMTP server's yes and
/// the record sends the notice once more when its lease ends, with the same Message-ID.
public final class CustomerNoticeDeliverer: OutboxLane {
    public static let defaultRate = 5.0
    /// How long an ended notice is kept on its parcel (and counted per day); then it is forgotten, hourly.
    public static let keptFor: TimeInterval = 180 * 86_400

    let store: any WatchStore
    let mail: CustomerNoticeMail
    let clock: any TrackingClock
    private let rate: Mutex<SendingRate>
    private let retry = DeliveryRetryPolicy()
    private let lease: TimeInterval
    private let busy = Mutex(Set<Int64>())
    private let counters = Mutex([String: Int]())
    /// When ended notices were last forgotten.
    private let forgotten = Mutex<Date?>(nil)
    private let failures: StoreFailures
    private let log: Logger?

    public init(
        store: any WatchStore, mail: CustomerNoticeMail, clock: any TrackingClock, perSecond: Double = defaultRate,
        lease: TimeInterval = 60, failures: StoreFailures = StoreFailures(), log: Logger? = nil
    ) {
        self.store = store
        self.mail = mail
        self.clock = clock
        rate = Mutex(SendingRate(perSecond: perSecond))
        self.lease = lease
        self.failures = failures
        self.log = log
    }

    /// Notices ended so far by outcome (`sent`, `refused`, `stopped`, `failed`) and attempts to retry (`retried`).
    public var statistics: [String: Int] { counters.withLock { $0 } }

    public func claimAttempts(limit: Int) async -> [OutboxAttempt] {
        let now = clock.now
        await forgetOld(now)
        let free = rate.withLock { min(limit, $0.available(at: clock.uptime)) }
        guard free > 0 else { return [] }
        let excluded = busy.withLock { $0 }
        let due: [CustomerNoticeRecord]
        do {
            due = try await store.claimCustomerNotices(
                at: now, limit: free, leaseUntil: now.addingTimeInterval(lease), excludingWatches: excluded)
        } catch {
            failures.report(.customerNotices, error, context: ["doing": "customer notices"])
            return []
        }
        rate.withLock { $0.take(due.count) }
        busy.withLock { busy in for notice in due { if let watch = notice.watchID { busy.insert(watch) } } }
        return due.map { notice in OutboxAttempt { await self.attempt(notice) } }
    }

    /// At most hourly: the notices that ended over ``keptFor`` ago are forgotten.
    private func forgetOld(_ now: Date) async {
        let due = forgotten.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= 3_600 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            try await store.forgetCustomerNotices(endedBefore: now.addingTimeInterval(-Self.keptFor))
        } catch {
            failures.report(.customerNotices, error, context: ["doing": "forgetting old notices"])
        }
    }

    private func attempt(_ notice: CustomerNoticeRecord) async {
        defer { _ = busy.withLock { $0.remove(notice.watchID ?? -1) } }
        let started = clock.now
        let settings: NoticeSettings
        let stop: String?
        do {
            settings = NoticeSettings.stored(try await store.noticeSettingsJSON(owner: WatchOwner(id: notice.owner)))
            stop = try await store.customerNoticeStop(owner: notice.owner, addressHash: NoticeStop.addressHash(notice.address))
        } catch {
            // Tried again when the lease ends.
            return failures.report(.customerNotices, error, context: ["notice": "\(notice.id)"])
        }
        if let stop {
            return await finish(notice, "stopped", status: nil, error: "the address is on the stop list (\(stop))", at: started)
        }
        guard settings.enabled else {
            return await finish(notice, "stopped", status: nil, error: "the shop's customer notices are off", at: started)
        }
        guard let rendered = mail.render(notice, settings: settings) else {
            return await finish(notice, "failed", status: nil, error: "the notice's parcel or address cannot be read", at: started)
        }
        let outcome = await mail.sender.send(rendered.message)
        let now = clock.now
        if outcome.error == nil {
            return await finish(notice, "sent", status: outcome.status, error: nil, at: now)
        }
        if let status = outcome.status, (500..<600).contains(status) {
            do {
                try await store.stopCustomerNotices(
                    owner: notice.owner, addressHash: NoticeStop.addressHash(notice.address), reason: "refused \(status)",
                    at: now)
            } catch { failures.report(.customerNotices, error, context: ["notice": "\(notice.id)"]) }
            return await finish(notice, "refused", status: status, error: outcome.error, at: now)
        }
        guard let next = retry.retry(after: notice.attempts + 1, createdAt: notice.createdAt, now: now, random: 0.5) else {
            return await finish(notice, "failed", status: outcome.status, error: outcome.error, at: now)
        }
        await finish(notice, "pending", status: outcome.status, error: outcome.error, at: now, retryAt: next)
    }

    private func finish(
        _ notice: CustomerNoticeRecord, _ state: String, status: Int?, error: String?, at: Date, retryAt: Date? = nil
    ) async {
        let attempted = ["sent", "refused", "pending"].contains(state) || (state == "failed" && status != nil)
        do {
            try await store.recordCustomerNotice(
                notice.id, state: state, at: at, status: status, error: error.map { String($0.prefix(500)) },
                retryAt: retryAt, attempted: attempted)
        } catch {
            failures.report(.customerNotices, error, context: ["notice": "\(notice.id)"])
        }
        let result = state == "pending" ? "retried" : state
        counters.withLock { $0[result, default: 0] += 1 }
        log?.info(
            "customer_notice",
            metadata: [
                "id": .stringConvertible(notice.id), "milestone": .string(notice.milestone.rawValue),
                "attempt": .stringConvertible(notice.attempts + 1), "status": EventFields.status(status),
                "result": .string(result),
            ])
    }
}
