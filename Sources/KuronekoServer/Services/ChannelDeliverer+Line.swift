import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore

/// LINE's month: the quota read at most three times an hour, the switch to a daily digest when what is left
/// would not last the month at the channel's pace (``LineBudget``), and the digest itself.
extension ChannelDeliverer {
    enum LineStep {
        /// Send this (one announcement, or a digest of the channel's waiting ones).
        case send(ChannelAnnouncement, covering: [PendingChannelDelivery])
        /// Not now: wait until then.
        case hold(until: Date, reason: String)
    }

    func budget(
        _ delivery: PendingChannelDelivery, settings: LineChannel.Settings, state: inout ChannelState,
        announcement: Announcement, at now: Date
    ) async -> LineStep {
        let channel = delivery.channel
        let month = LineBudget.month(of: now)
        if state.month != month {
            state.month = month
            state.sentThisMonth = 0
            state.heldUntil = nil
            state.digestSince = nil
            state.nextDigest = nil
            state.digestAnnounced = false
        }
        let lastAsked = state.quotaAskedAt ?? state.quota?.checkedAt
        let token = settings.accessToken
        if lastAsked.map({ now.timeIntervalSince($0) >= LineQuota.freshFor || $0 > now }) ?? true
        {
            state.quotaAskedAt = now
            var answers: [DeliveryOutcome] = []
            for request in LineQuota.requests(token: token, broadcast: settings.to == nil, origin: LineChannel.origin(offer.server.settings(for: LineChannel())), now: now)
            {
                answers.append(await sender.send(request))
            }
            switch LineQuota.read(answers, at: now) {
            case .success(let quota): state.quota = quota
            case .failure(let problem):
                log?.warning(
                    "channel quota unread: \(problem.message)",
                    metadata: ["id": .stringConvertible(channel.id), "kind": "line"])
            }
        }
        let cost = LineChannel.cost(of: settings, friends: state.quota?.friends)
        let short =
            state.quota.map {
                LineBudget.shouldDigest(quota: $0, cost: cost, sentThisMonth: state.sentThisMonth, now: now)
            } ?? false
        if short, state.digestSince == nil {
            state.digestSince = now
            state.nextDigest = LineBudget.nextDigest(after: now)
            state.digestAnnounced = false
            let left = state.quota.flatMap { quota in quota.limit.map { max(0, $0 - quota.used) } } ?? 0
            log?.info(
                "channel digest on: few messages are left this month; one digest a day at 20:00 Japan time",
                metadata: [
                    "id": .stringConvertible(channel.id), "kind": "line", "digest": "on", "left": .stringConvertible(left),
                    "cost": .stringConvertible(cost),
                ])
        } else if !short, state.digestSince != nil {
            state.digestSince = nil
            state.nextDigest = nil
            log?.info(
                "channel digest off: the month's messages suffice again",
                metadata: ["id": .stringConvertible(channel.id), "kind": "line", "digest": "off"])
        }
        guard state.digestSince != nil, let next = state.nextDigest else {
            return .send(ChannelAnnouncement(announcement), covering: [delivery])
        }
        guard now >= next else { return .hold(until: next, reason: "held for the day's LINE digest") }
        let backlog: [PendingChannelDelivery]
        do {
            backlog = try await store.channelBacklog(channel.id, limit: ChannelLimits.digestSize)
        } catch {
            failures.report(.claimChannelDeliveries, error, context: ["channel": "\(channel.id)"])
            backlog = []
        }
        var covered = [delivery]
        var items = [announcement]
        for waiting in backlog where waiting.outboxID != delivery.outboxID {
            guard let item = self.announcement(of: waiting) else { continue }
            covered.append(waiting)
            items.append(item)
        }
        let language: AnnouncementLanguage = channel.language == "en" ? .english : .japanese
        let notice = state.digestAnnounced == true ? nil : state.quota.map { LineBudget.notice(quota: $0, language: language) }
        state.digestAnnounced = true
        state.nextDigest = LineBudget.nextDigest(after: now)
        return .send(ChannelAnnouncement(digest: items, notice: notice), covering: covered)
    }
}

extension ChannelState {
    /// One message went out: counted for the month's pace, and (until LINE is asked again) in the quota.
    mutating func countSent(cost: Int) {
        sentThisMonth += 1
        quota?.used += cost
    }
}
