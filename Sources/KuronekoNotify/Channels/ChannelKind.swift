import Foundation
import Kuroneko

/// One kind of notification channel, all in one place: the fields it takes when added and how they are
/// checked, what of it is shown back, the message it sends for an announcement, and what each answer of its
/// service means. Registered once, in ``ChannelKinds/all``; the API, the OpenAPI document, the command line
/// and the web app take their lists from there (or are tested against it).
public protocol ChannelKind: Sendable {
    /// `ntfy`, `line`, …: the `kind` of `POST /v1/channels`.
    var name: String { get }
    /// The fields of `POST /v1/channels` this kind takes besides the common ones (`kind`, `numbers`, `kinds`,
    /// `urgent`, `lang`, `quiet_hours`).
    var fields: [String] { get }
    /// What the server must have to send it.
    var requirement: ChannelRequirement? { get }
    /// Checks the kind's own fields of a request body and makes the settings to store.
    func settings(from object: [String: Any]) throws(ChannelSettingsError) -> ChannelSettings
    /// The address the address guard checks when the channel is added, if any.
    func guardedURL(of settings: ChannelSettings) -> String?
    /// The destination as the API shows it: never a secret.
    func shown(_ settings: ChannelSettings) -> String?
    /// The message for one announcement (or a digest of several).
    func message(for announcement: ChannelAnnouncement, settings: ChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    /// What the service's answer means.
    func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict
}

/// What a kind needs of the server.
public enum ChannelRequirement: Sendable, Hashable {
    /// A VAPID key (Web Push).
    case vapid
    /// An SMTP server (`--smtp-url`, `--smtp-from`).
    case mail

    public var missing: String {
        switch self {
        case .vapid: "this server sends no Web Push (it has no VAPID key)"
        case .mail:
            "this server sends no e-mail: its operator has not set KURONEKO_SMTP_URL and KURONEKO_SMTP_FROM "
                + "(serve --smtp-url, --smtp-from)"
        }
    }
}

/// What goes out for an announcement.
public enum ChannelMessage: Sendable, Hashable {
    case http(ChannelRequest)
    /// An e-mail to this address through the server's SMTP server.
    case mail(MailAddress)
}

/// One announcement, or a day's announcements folded into one digest (LINE, when its month runs short).
public struct ChannelAnnouncement: Sendable, Hashable {
    public let announcements: [Announcement]
    /// The first message of a digest says why it is one.
    public var digestNotice: String?

    public init(_ announcement: Announcement) {
        announcements = [announcement]
    }

    public init(digest: [Announcement], notice: String?) {
        announcements = digest
        digestNotice = notice
    }

    /// The announcement (the first of a digest).
    public var first: Announcement { announcements[0] }
    public var isDigest: Bool { announcements.count > 1 || digestNotice != nil }
}

/// What a message is made with besides the announcement and the settings.
public struct ChannelContext: Sendable {
    public var vapid: VAPID?
    public var now: Date
    /// A smaller message, after a push service answered 413.
    public var shortened: Bool
    /// Where LINE's Messaging API is (`--line-origin`).
    public var lineOrigin: URL
    /// The same for every attempt of one outbox entry (or one digest), so a service that knows retry keys
    /// does not deliver a retried message twice.
    public var retryKey: String

    public static let lineAPI = URL(string: "https://api.line.me")!

    public init(
        vapid: VAPID?, now: Date, shortened: Bool = false, lineOrigin: URL = ChannelContext.lineAPI,
        retryKey: String = UUID().uuidString.lowercased()
    ) {
        self.vapid = vapid
        self.now = now
        self.shortened = shortened
        self.lineOrigin = lineOrigin
        self.retryKey = retryKey
    }
}

/// What an answer means for the channel.
public enum ChannelVerdict: Sendable, Hashable {
    case delivered
    /// Try again later: with backoff, and not before `after` seconds when the service said so.
    case retry(after: TimeInterval?)
    /// The destination refuses (a user's own server answering 404, a rejected token): shown on the channel,
    /// retried with backoff; the channel is paused once it has failed for 24 hours.
    case failing(reason: String)
    /// Gone for good (a push subscription's 404 or 410): the channel ends.
    case ended(reason: String)
    /// Nothing can be sent before `until` (LINE's monthly limit): the channel's messages wait.
    case held(until: Date, reason: String)
    /// Send a shorter message now (a push service's 413).
    case shorten
}

/// Why a kind's fields were refused, in one line.
public struct ChannelSettingsError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Why a message could not be made.
public struct ChannelMessageError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// How a channel's destination is stored (the `destination` JSON of a channel record): each kind uses the
/// fields it needs.
public struct ChannelSettings: Codable, Sendable, Hashable {
    public var url: String?
    public var p256dh: String?
    public var auth: String?
    /// A webhook channel's signing secret.
    public var secret: String?
    /// The kinds the owner marked urgent (sent through quiet hours); `nil`: what is urgent by its nature
    /// (exceptions, arriving soon, out for delivery).
    public var urgent: [String]?
    /// LINE: the channel access token (a secret: never shown or logged).
    public var accessToken: String?
    /// LINE: the user or group IDs told, or `nil` for a broadcast to every friend.
    public var to: [String]?

    enum CodingKeys: String, CodingKey {
        case url, p256dh, auth, secret, urgent, to
        case accessToken = "access_token"
    }

    public init(
        url: String? = nil, p256dh: String? = nil, auth: String? = nil, secret: String? = nil,
        accessToken: String? = nil, to: [String]? = nil
    ) {
        self.url = url
        self.p256dh = p256dh
        self.auth = auth
        self.secret = secret
        self.accessToken = accessToken
        self.to = to
    }
}

/// Answers every kind of a user's own URL shares (ntfy, Slack, Discord, a signed webhook): 2xx delivered;
/// 429 and 503 after their `Retry-After`; 404 and 410 failing (a server being redeployed comes back; the
/// channel pauses after 24 hours of it); anything else retried with backoff.
public enum OwnURLAnswers {
    public static func verdict(of outcome: DeliveryOutcome) -> ChannelVerdict {
        if outcome.delivered { return .delivered }
        switch outcome.status {
        case 404?, 410?:
            return .failing(reason: "the address answered HTTP \(outcome.status ?? 0) (not found)")
        case 429?, 503?:
            return .retry(after: outcome.retryAfter)
        default:
            return .retry(after: nil)
        }
    }
}

/// Every kind, registered once.
public enum ChannelKinds {
    public static let all: [any ChannelKind] = [
        WebPushChannel(), NtfyChannel(), SlackChannel(), DiscordChannel(), WebhookChannel(), EmailChannel(),
        LineChannel(),
    ]

    public static var names: [String] { all.map(\.name) }

    public static func named(_ name: String) -> (any ChannelKind)? { all.first { $0.name == name } }

    /// Every kind-specific field of any kind.
    public static var fields: [String] {
        var seen: [String] = []
        for field in all.flatMap(\.fields) where !seen.contains(field) { seen.append(field) }
        return seen
    }
}

extension ChannelKind {
    public var requirement: ChannelRequirement? { nil }
    public var fields: [String] { ["url"] }

    /// A URL of at most 2,048 characters, http or https.
    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> ChannelSettings {
        guard let url = object["url"] as? String, url.count <= 2_048 else {
            throw ChannelSettingsError("url is missing or not a string; a \(name) channel needs its URL")
        }
        return ChannelSettings(url: url)
    }

    public func guardedURL(of settings: ChannelSettings) -> String? { settings.url }
    public func shown(_ settings: ChannelSettings) -> String? { settings.url }
    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        OwnURLAnswers.verdict(of: outcome)
    }

    /// The settings' URL as a URL, or the error that says it is missing.
    func address(_ settings: ChannelSettings) throws(ChannelMessageError) -> URL {
        guard let text = settings.url, let url = URL(string: text) else {
            throw ChannelMessageError("the \(name) channel has no usable URL")
        }
        return url
    }
}
