import Foundation
import Kuroneko

/// One kind of notification channel, all in one place: the fields it takes when added (``fields``, from which
/// the API's checks, the OpenAPI document, the command line's flags and the web app's form are made), its own
/// settings type (stored as the channel's `destination` JSON), what the server must have to send it, the
/// server settings it reads (``serverSettings``), the message it sends for an announcement, and what each
/// answer of its service means. Registered once, in ``ChannelKindRegistry/standard`` (or a server's own
/// registry, as the tests' kinds are).
public protocol ChannelKind: Sendable {
    /// What one channel of this kind keeps: its destination and secrets, as JSON in the channel's record.
    associatedtype Settings: Codable & Sendable
    /// `ntfy`, `line`, …: the `kind` of `POST /v1/channels`.
    var name: String { get }
    /// Its name for people, in Japanese and English.
    var title: ChannelWords { get }
    /// The fields of `POST /v1/channels` this kind takes besides the common ones (`kind`, `numbers`, `kinds`,
    /// `urgent`, `lang`, `quiet_hours`).
    var fields: [ChannelField] { get }
    /// The settings the operator may give this kind on the server (`serve --channel-setting KIND.NAME=VALUE`).
    var serverSettings: [ChannelServerSetting] { get }
    /// Why this server cannot send this kind now (no VAPID key, no SMTP server, a server setting missing), in
    /// one line; `nil` when it can.
    func unavailable(on server: ChannelServer) -> String?
    /// Checks the kind's own fields of a request body and makes the settings to store.
    func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings
    /// The address the address guard checks when the channel is added, if any.
    func guardedURL(of settings: Settings) -> String?
    /// The destination as the API shows it: never a secret.
    func shown(_ settings: Settings) -> String?
    /// What is shown once, in the answer that adds the channel (a signing secret the server made).
    func shownOnce(_ settings: Settings) -> [String: String]
    /// The message for one announcement (or a digest of several).
    func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    /// What the service's answer means.
    func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict
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
    /// The operator's settings for this kind (``ChannelKind/serverSettings``), defaults filled in.
    public var serverSettings: [String: String]
    /// The same for every attempt of one outbox entry (or one digest), so a service that knows retry keys
    /// does not deliver a retried message twice.
    public var retryKey: String

    public init(
        vapid: VAPID?, now: Date, shortened: Bool = false, serverSettings: [String: String] = [:],
        retryKey: String = UUID().uuidString.lowercased()
    ) {
        self.vapid = vapid
        self.now = now
        self.shortened = shortened
        self.serverSettings = serverSettings
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

/// A channel that takes one URL (`"url"`): ntfy, Slack, Discord.
public struct URLChannelSettings: Codable, Sendable, Hashable {
    public var url: String

    public init(url: String) {
        self.url = url
    }
}

extension ChannelKind {
    public var serverSettings: [ChannelServerSetting] { [] }
    public func unavailable(on server: ChannelServer) -> String? { nil }
    public func shownOnce(_ settings: Settings) -> [String: String] { [:] }
    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        OwnURLAnswers.verdict(of: outcome)
    }
}

extension ChannelKind where Settings == URLChannelSettings {
    /// A URL of at most 2,048 characters, http or https.
    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        URLChannelSettings(url: try ChannelField.url(in: object, kind: name))
    }

    public func guardedURL(of settings: Settings) -> String? { settings.url }
    public func shown(_ settings: Settings) -> String? { settings.url }

    /// The settings' URL as a URL, or the error that says it is missing.
    func address(_ settings: Settings) throws(ChannelMessageError) -> URL {
        try ChannelField.address(settings.url, kind: name)
    }
}
