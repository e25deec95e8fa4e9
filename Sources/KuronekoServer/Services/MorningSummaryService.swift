import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore

/// Makes each channel's morning summary once a day at its minute (Japan time): its list's parcels planned for
/// today, out for delivery or waiting after a missed delivery, queued in the channel's outbox like any
/// announcement (quiet hours, LINE's quota and retries apply); a day with nothing to say is taken and sends
/// nothing. Looks every minute, on the injected clock.
struct MorningSummaryService: BackgroundService {
    let name = "morning-summary"
    let store: any WatchStore
    let clock: any TrackingClock
    let failures: StoreFailures
    /// Rung when a summary is queued, so the outbox sends it at once.
    let queued: @Sendable () -> Void
    /// The most watches of a list a summary reads.
    static let watchesRead = 10_000

    func run() async {
        while !Task.isCancelled {
            await tick()
            try? await clock.sleep(until: clock.uptime + .seconds(60))
        }
    }

    /// Makes what is due now. - Returns: how many summaries were queued.
    @discardableResult
    func tick() async -> Int {
        let now = clock.now
        let today = JapanDateTime(now)
        let minute = (today.time?.hour ?? 0) * 60 + (today.time?.minute ?? 0)
        var made = 0
        do {
            var parcels: [String: [(number: TrackingNumber, label: String?, shipment: Shipment)]] = [:]
            for channel in try await store.morningSummariesDue(day: today.dateText, minute: minute) {
                if parcels[channel.owner.id] == nil {
                    let watches = try await store.watches(
                        owner: channel.owner, filter: .active, after: nil, limit: Self.watchesRead)
                    parcels[channel.owner.id] = watches.compactMap { watch in
                        watch.latest?.shipment.map { (watch.number, watch.label, $0) }
                    }
                }
                let chosen = (parcels[channel.owner.id] ?? []).filter { channel.numbers?.contains($0.number.digits) ?? true }
                let summary = MorningSummary.compose(chosen, today: today)
                if try await store.queueMorningSummary(channel: channel.id, day: today.dateText, summary: summary?.json, at: now),
                    summary != nil
                {
                    made += 1
                }
            }
        } catch {
            failures.report(.morningSummaries, error)
        }
        if made > 0 { queued() }
        return made
    }
}

/// The morning summary as a preview shows it, made as the service makes it.
public enum MorningSummaryPreview {
    /// The summary `owner`'s list would get now (limited to `numbers` where a channel is): what the preview shows
    /// (`GET /v1/morning-summary`, `kuroneko channels summary`, the web app's notifications page); `nil` on a day
    /// with nothing to say, when none is sent.
    public static func summary(
        of owner: WatchOwner, numbers: Set<String>? = nil, store: any WatchStore, now: Date
    ) async throws -> MorningSummary? {
        let watches = try await store.watches(
            owner: owner, filter: .active, after: nil, limit: MorningSummaryService.watchesRead)
        let parcels = watches.compactMap { watch -> (number: TrackingNumber, label: String?, shipment: Shipment)? in
            guard numbers?.contains(watch.number.digits) ?? true, let shipment = watch.latest?.shipment else { return nil }
            return (watch.number, watch.label, shipment)
        }
        return MorningSummary.compose(parcels, today: JapanDateTime(now))
    }

    /// The preview as the API answers it: the day, and the message's title and body in `language` (null on a day
    /// with nothing to say).
    static func object(_ summary: MorningSummary?, day: String, language: AnnouncementLanguage) -> [String: Any] {
        guard let summary else { return ["day": day, "title": NSNull(), "body": NSNull(), "parcels": 0] }
        let message = Announcement(summary: summary, language: language, publicURL: nil)
        return ["day": day, "title": message.title, "body": message.body, "parcels": summary.items.count + summary.more]
    }
}

