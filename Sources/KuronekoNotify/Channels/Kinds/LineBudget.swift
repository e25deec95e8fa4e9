import Foundation
import Kuroneko

/// A LINE channel's month as LINE counts it: the quota (`nil`: no limit), what was used, and for a broadcast
/// how many friends it reaches (each costs one message).
public struct LineQuota: Codable, Sendable, Hashable {
    public var limit: Int?
    public var used: Int
    public var friends: Int?
    public var checkedAt: Date

    public init(limit: Int?, used: Int, friends: Int?, checkedAt: Date) {
        self.limit = limit
        self.used = used
        self.friends = friends
        self.checkedAt = checkedAt
    }

    /// How often the quota is read at most: three times an hour.
    public static let freshFor: TimeInterval = 20 * 60

    /// The requests that read it: the quota and its consumption, and for a broadcast yesterday's friends
    /// (LINE computes them once a day, Japan time).
    public static func requests(token: String, broadcast: Bool, origin: URL, now: Date) -> [ChannelRequest] {
        var paths = ["/v2/bot/message/quota", "/v2/bot/message/quota/consumption"]
        if broadcast {
            let yesterday = JapanDateTime(now.addingTimeInterval(-86_400))
            paths.append(
                "/v2/bot/insight/followers?date=" + String(format: "%04d%02d%02d", yesterday.year, yesterday.month, yesterday.day))
        }
        return paths.compactMap { path in
            URL(string: path, relativeTo: origin).map {
                ChannelRequest(
                    url: $0.absoluteURL, headers: ["Authorization": "Bearer " + token], body: Data(), method: "GET",
                    guarded: false)
            }
        }
    }

    /// The quota of the answers to ``requests(token:broadcast:origin:now:)``, or why it could not be read.
    public static func read(_ answers: [DeliveryOutcome], at now: Date) -> Result<LineQuota, ChannelSettingsError> {
        func object(_ outcome: DeliveryOutcome) -> [String: Any]? {
            guard outcome.delivered else { return nil }
            return try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any]
        }
        guard answers.count >= 2 else { return .failure(ChannelSettingsError("LINE's quota was not asked")) }
        guard let quota = object(answers[0]), let consumption = object(answers[1]),
            let type = quota["type"] as? String, let used = consumption["totalUsage"] as? Int
        else {
            let failed = answers.first { !$0.delivered } ?? answers[0]
            let reason = LineChannel.message(of: failed.body) ?? failed.error ?? "an answer that is not the quota"
            return .failure(
                ChannelSettingsError("LINE's quota could not be read: \(failed.status.map { "HTTP \($0): " } ?? "")\(reason)"))
        }
        let limit = type == "limited" ? quota["value"] as? Int : nil
        var friends: Int?
        if answers.count > 2, let insight = object(answers[2]), insight["status"] as? String == "ready" {
            friends = insight["targetedReaches"] as? Int
        }
        return .success(LineQuota(limit: limit, used: used, friends: friends, checkedAt: now))
    }
}

/// When a LINE channel folds its changes into one daily digest: when what is left of the month, shared over
/// the days left (today included), would not cover a day of the messages it has been sending (its average per
/// day this month, at least one), each costing one per recipient. Pure: the deliverer asks it.
public enum LineBudget {
    /// The hour the digest goes out, Japan time.
    public static let digestHour = 20

    public static func shouldDigest(quota: LineQuota, cost: Int, sentThisMonth: Int, now: Date) -> Bool {
        guard let limit = quota.limit else { return false }
        let today = JapanDateTime(now)
        let daysInMonth = JapanDateTime.daysIn(month: today.month, year: today.year)
        let daysLeft = max(1, daysInMonth - today.day + 1)
        let perDay = max(1.0, Double(sentThisMonth) / Double(max(1, today.day)))
        let left = Double(max(0, limit - quota.used))
        return left / Double(daysLeft) < perDay * Double(max(1, cost))
    }

    /// The next digest time after `now`: today's 20:00 Japan time, or tomorrow's.
    public static func nextDigest(after now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo") ?? TimeZone(secondsFromGMT: 9 * 3_600)!
        let today = calendar.date(bySettingHour: digestHour, minute: 0, second: 0, of: now) ?? now
        return today > now ? today : calendar.date(byAdding: .day, value: 1, to: today) ?? now.addingTimeInterval(86_400)
    }

    /// `2026-12`: the month LINE counts in (Japan time).
    public static func month(of now: Date) -> String {
        let today = JapanDateTime(now)
        return String(format: "%04d-%02d", today.year, today.month)
    }

    /// The notice a digest starts with, once, in the channel's language.
    public static func notice(quota: LineQuota, language: AnnouncementLanguage) -> String {
        let left = quota.limit.map { max(0, $0 - quota.used) } ?? 0
        return language == .japanese
            ? "今月のLINEの残り通数が少ないため（残り\(left)通）、お知らせを1日1回（20時）にまとめてお送りします。"
            : "Few LINE messages are left this month (\(left)), so updates now come once a day, at 20:00, in one message."
    }
}

/// What the deliverer keeps of a channel between attempts (the channel's `state` JSON), shown with it: why
/// it is failing and since when, and for LINE the quota, the digest and a hold until the month turns.
public struct ChannelState: Codable, Sendable, Hashable {
    public var problem: String?
    public var failingSince: Date?
    public var quota: LineQuota?
    /// When LINE's quota was last asked for, read or not: asked again only ``LineQuota/freshFor`` later, so a
    /// refused token (401) does not make every attempt ask.
    public var quotaAskedAt: Date?
    /// Since when the channel sends a daily digest, and when the next one goes.
    public var digestSince: Date?
    public var nextDigest: Date?
    /// Whether a digest has said why it is one.
    public var digestAnnounced: Bool?
    public var heldUntil: Date?
    /// Messages sent in `month` (Japan time), for the daily average.
    public var month: String?
    public var sentThisMonth: Int

    public init() {
        sentThisMonth = 0
    }

    public static func decode(_ data: Data?) -> ChannelState {
        data.flatMap { try? JSONDecoder().decode(ChannelState.self, from: $0) } ?? ChannelState()
    }

    public var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data("{}".utf8) }
}
