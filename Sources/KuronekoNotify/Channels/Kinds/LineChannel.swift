import Foundation
import Kuroneko

/// LINE, through the Messaging API of a LINE Official Account: `"access_token"` (the channel access token, a
/// secret: stored, never shown or logged) and `"to"`: one user, group or room ID (`U…`, `C…`, `R…`: a push),
/// several user IDs (a multicast, at most 500), or `"broadcast"` (every friend of the account).
///
/// Every message carries an `X-Line-Retry-Key` made from its outbox entry, so a retried message whose first
/// answer was lost is not delivered twice (LINE answers 409 with `x-line-accepted-request-id`: delivered).
/// Answers: 429 "monthly limit" holds the channel until the month turns (Japan time); any other 429 is retried
/// after a minute at least; 400, 401, 403 and 413 are LINE refusing the token or the message, shown on the
/// channel with LINE's words; 5xx and no answer are retried with backoff.
public struct LineChannel: ChannelKind {
    public let name = "line"
    public let title = ChannelWords("LINE", "LINE")
    public let fields = [
        ChannelField(
            "access_token", .secret, label: ChannelWords("チャネルアクセストークン", "Channel access token"),
            hint: ChannelWords(
                "LINE Developersコンソールの「Messaging API設定」にある長期のトークン",
                "the long-lived token on the Messaging API tab of the LINE Developers console"),
            environment: "KURONEKO_LINE_ACCESS_TOKEN"),
        ChannelField(
            "to", .list, label: ChannelWords("送り先", "Send to"),
            hint: ChannelWords(
                "あなたのユーザーID（チャネル基本設定）、カンマ区切りの複数のユーザーID、グループID（C…）、または broadcast"
                    + "（友だち全員。1人につき1通と数えられます）",
                "your user ID (Basic settings tab), user IDs separated by commas, a group ID (C…), or broadcast "
                    + "(every friend of the account; each costs one message)"),
            placeholder: "U… / broadcast"),
    ]
    /// Where LINE's Messaging API is: LINE's own, or a stand-in for tests (`--channel-setting line.origin=URL`).
    public let serverSettings = [
        ChannelServerSetting(
            "origin", .url, default: "https://api.line.me",
            help: "where LINE's Messaging API is (a stand-in for tests)")
    ]

    /// The channel access token (a secret: never shown or logged) and the user or group IDs told, or `nil`
    /// for a broadcast to every friend.
    public struct Settings: Codable, Sendable, Hashable {
        public var accessToken: String
        public var to: [String]?

        public init(accessToken: String, to: [String]?) {
            self.accessToken = accessToken
            self.to = to
        }

        enum CodingKeys: String, CodingKey {
            case to
            case accessToken = "access_token"
        }
    }
    /// LINE's limit for one text message, in UTF-16 code units.
    public static let textLimit = 5_000
    /// The most user IDs one multicast takes.
    public static let multicastLimit = 500
    /// How long a 429 rate limit waits at least (LINE sends no Retry-After).
    public static let rateLimitWait: TimeInterval = 60

    public init() {}

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        guard let token = object["access_token"] as? String, (1...1_000).contains(token.count),
            token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw ChannelSettingsError(
                "access_token is missing or not a channel access token (the long-lived token from the Messaging API "
                    + "tab of the LINE Developers console: printable ASCII, no spaces, at most 1000 characters)")
        }
        let to: [String]?
        switch object["to"] {
        case let text as String where text == "broadcast": to = nil
        case let text as String: to = [text]
        case let list as [Any]:
            guard let ids = list as? [String], (1...Self.multicastLimit).contains(ids.count) else {
                throw ChannelSettingsError("to is not a list of 1 to \(Self.multicastLimit) LINE IDs")
            }
            to = ids
        default:
            throw ChannelSettingsError(
                "to is missing; give a LINE user ID (U followed by 32 hex digits, \"Your user ID\" on the channel's "
                    + "Basic settings tab), a group ID (C…), a list of user IDs, or \"broadcast\"")
        }
        if let to {
            for id in to where id.wholeMatch(of: /[UCR][0-9a-f]{32}/) == nil {
                throw ChannelSettingsError(
                    "to: \"\(id.prefix(40))\" is not a LINE ID (U, C or R followed by 32 lower-case hex digits); "
                        + "a LINE ID you search by is not one")
            }
            if to.count > 1, let group = to.first(where: { !$0.hasPrefix("U") }) {
                throw ChannelSettingsError(
                    "to: \(group.prefix(8))… is a group or room: it is told alone; several recipients must all be "
                        + "user IDs (U…)")
            }
            if Set(to).count != to.count { throw ChannelSettingsError("to names the same ID twice") }
        }
        return Settings(accessToken: token, to: to)
    }

    public func guardedURL(of settings: Settings) -> String? { nil }

    /// `broadcast`, or the first ID shortened and how many more.
    public func shown(_ settings: Settings) -> String? {
        guard let to = settings.to, let first = to.first else { return "broadcast" }
        return String(first.prefix(5)) + "…" + (to.count > 1 ? " +\(to.count - 1)" : "")
    }

    /// What one message costs of the month's quota: one per recipient (a broadcast: every friend who can
    /// receive it, `friends` when known).
    public static func cost(of settings: Settings, friends: Int?) -> Int {
        settings.to?.count ?? max(1, friends ?? 1)
    }

    public func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let token = settings.accessToken
        let text = Self.text(announcement)
        var object: [String: Any] = ["messages": [["type": "text", "text": text]]]
        let path: String
        switch settings.to {
        case nil: path = "/v2/bot/message/broadcast"
        case let ids? where ids.count == 1:
            path = "/v2/bot/message/push"
            object["to"] = ids[0]
        case let ids?:
            path = "/v2/bot/message/multicast"
            object["to"] = ids
        }
        let origin = Self.origin(context.serverSettings)
        guard let url = URL(string: path, relativeTo: origin)?.absoluteURL else {
            throw ChannelMessageError("the LINE origin \(origin) is not usable")
        }
        return .http(
            ChannelRequest(
                url: url,
                headers: [
                    "Content-Type": "application/json", "Authorization": "Bearer " + token,
                    "X-Line-Retry-Key": context.retryKey,
                ],
                body: ChannelText.encode(object), guarded: false))
    }

    /// Where the Messaging API is, from the server's settings for this kind.
    public static func origin(_ serverSettings: [String: String]) -> URL {
        serverSettings["origin"].flatMap(URL.init(string:)) ?? URL(string: "https://api.line.me")!
    }

    /// The text: the title, the line, the link and, for an exception, the carrier's page to change the delivery
    /// (the home server's address is no use away from home); a digest lists each parcel on its own lines after
    /// its notice. At most ``textLimit`` UTF-16 code units: what does not fit is counted at the end.
    static func text(_ announcement: ChannelAnnouncement) -> String {
        func block(_ item: Announcement) -> String {
            let action = item.actionLink.map { "\(item.actionTitle): \($0.absoluteString)" }
            return ([item.title, item.body] + [item.link?.absoluteString, action].compactMap { $0 })
                .filter { !$0.isEmpty }.joined(separator: "\n")
        }
        guard announcement.isDigest else { return Self.fitted(block(announcement.first)) }
        var parts = announcement.digestNotice.map { [$0] } ?? []
        var used = parts.reduce(0) { $0 + $1.utf16.count + 2 }
        for (index, item) in announcement.announcements.enumerated() {
            let next = block(item)
            let left = announcement.announcements.count - index
            let tail = "… +\(left)"
            guard used + next.utf16.count + 2 + tail.utf16.count + 2 <= textLimit else {
                parts.append(tail)
                break
            }
            parts.append(next)
            used += next.utf16.count + 2
        }
        return Self.fitted(parts.joined(separator: "\n\n"))
    }

    /// Cut to the limit on a character boundary.
    private static func fitted(_ text: String) -> String {
        guard text.utf16.count > textLimit else { return text }
        var result = ""
        var count = 0
        for character in text {
            let size = String(character).utf16.count
            guard count + size <= textLimit - 1 else { break }
            result.append(character)
            count += size
        }
        return result + "…"
    }

    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        if outcome.delivered { return .delivered }
        let message = Self.message(of: outcome.body)
        switch outcome.status {
        case 409? where outcome.headers["x-line-accepted-request-id"] != nil:
            return .delivered
        case 429? where message?.lowercased().contains("monthly limit") == true:
            return .held(
                until: Self.startOfNextMonth(after: now),
                reason: "LINE's monthly message limit is reached; messages wait until the month turns (Japan time)")
        case 429?:
            return .retry(after: max(Self.rateLimitWait, outcome.retryAfter ?? 0))
        case let status? where [400, 401, 403, 409, 413].contains(status):
            return .failing(reason: "LINE answered \(status): \(message ?? "no reason given")")
        default:
            return .retry(after: nil)
        }
    }

    /// LINE's `message` of an error body, in one line of at most 300 characters.
    static func message(of body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let message = object["message"] as? String
        else { return nil }
        var text = message
        if let details = object["details"] as? [[String: Any]] {
            let extra = details.compactMap { detail -> String? in
                guard let words = detail["message"] as? String else { return nil }
                return (detail["property"] as? String).map { "\($0): \(words)" } ?? words
            }
            if !extra.isEmpty { text += " (" + extra.joined(separator: "; ") + ")" }
        }
        return String(text.filter { !$0.isNewline }.prefix(300))
    }

    /// 00:00 on the first of the next month, Japan time.
    public static func startOfNextMonth(after now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo") ?? TimeZone(secondsFromGMT: 9 * 3_600)!
        let month = calendar.dateComponents([.year, .month], from: now)
        let start = calendar.date(from: month) ?? now
        return calendar.date(byAdding: .month, value: 1, to: start) ?? now.addingTimeInterval(31 * 86_400)
    }
}
