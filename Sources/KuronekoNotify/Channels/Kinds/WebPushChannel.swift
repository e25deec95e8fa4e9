import Foundation
import Kuroneko

/// A browser's push subscription (`"subscription": PushSubscription` as the browser gives it): an encrypted
/// (RFC 8291 aes128gcm) message signed with the server's VAPID key. The push service's 404 or 410 means
/// the subscription is gone: the channel ends. 413: sent again at once, shorter.
public struct WebPushChannel: ChannelKind {
    public let name = "web_push"
    public let title = ChannelWords("ブラウザー", "Browser")
    public let fields = [
        ChannelField("subscription", .subscription, label: ChannelWords("購読", "Subscription"))
    ]

    /// The push service's endpoint (kept as `url`) and the subscription's keys.
    public struct Settings: Codable, Sendable, Hashable {
        public var url: String
        public var p256dh: String
        public var auth: String

        public init(url: String, p256dh: String, auth: String) {
            self.url = url
            self.p256dh = p256dh
            self.auth = auth
        }
    }
    /// How long a push service keeps an undelivered message (24 hours).
    public static let timeToLive = 86_400

    public init() {}

    public func unavailable(on server: ChannelServer) -> String? {
        server.hasVAPID ? nil : "this server sends no Web Push (it has no VAPID key)"
    }

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        guard let subscription = object["subscription"] as? [String: Any],
            let endpoint = subscription["endpoint"] as? String, endpoint.count <= ChannelField.maximumURLLength,
            let keys = subscription["keys"] as? [String: Any], let p256dh = keys["p256dh"] as? String,
            let auth = keys["auth"] as? String
        else {
            throw ChannelSettingsError(
                "subscription is not a PushSubscription: {\"endpoint\", \"keys\": {\"p256dh\", \"auth\"}}")
        }
        do {
            _ = try PushSubscriptionKeys(p256dh: p256dh, auth: auth)
        } catch {
            throw ChannelSettingsError("subscription.keys: \(error)")
        }
        guard endpoint.lowercased().hasPrefix("https://") || endpoint.lowercased().hasPrefix("http://") else {
            throw ChannelSettingsError("subscription.endpoint is not an http(s) URL")
        }
        return Settings(url: endpoint, p256dh: p256dh, auth: auth)
    }

    public func guardedURL(of settings: Settings) -> String? { settings.url }

    /// Only the push service's origin: the endpoint's path is the subscription's secret.
    public func shown(_ settings: Settings) -> String? {
        guard let url = URL(string: settings.url) else { return nil }
        return VAPID.origin(of: url)
    }

    public func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let endpoint = try ChannelField.address(settings.url, kind: name)
        guard let keys = try? PushSubscriptionKeys(p256dh: settings.p256dh, auth: settings.auth)
        else { throw ChannelMessageError("the push subscription's keys cannot be read") }
        guard let vapid = context.vapid else { throw ChannelMessageError("this server has no VAPID key") }
        let announcement = announcement.first
        var payload: [String: String] = [
            "title": announcement.title, "kind": announcement.kind.rawValue, "tag": announcement.topic,
            "number": announcement.number,
        ]
        if !context.shortened {
            payload["body"] = announcement.body
            if let link = announcement.link { payload["url"] = link.absoluteString }
            if let action = announcement.actionLink {
                payload["action_url"] = action.absoluteString
                payload["action_title"] = announcement.actionTitle
            }
        }
        let json = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data()
        do {
            let body = try WebPushEncryption.encrypt(json, to: keys)
            return .http(
                ChannelRequest(
                    url: endpoint,
                    headers: [
                        "Content-Type": "application/octet-stream", "Content-Encoding": "aes128gcm",
                        "TTL": String(Self.timeToLive), "Urgency": announcement.urgent ? "high" : "normal",
                        "Topic": String(announcement.topic.prefix(32)),
                        "Authorization": try vapid.authorization(for: endpoint, now: context.now),
                    ],
                    body: body))
        } catch {
            throw ChannelMessageError("the push message could not be made: \(error)")
        }
    }

    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        if outcome.delivered { return .delivered }
        switch outcome.status {
        case 404?, 410?:
            return .ended(reason: "the service answered \(outcome.status ?? 0): the channel is gone")
        case 413?: return .shorten
        case 429?, 503?: return .retry(after: outcome.retryAfter)
        default: return .retry(after: nil)
        }
    }
}
