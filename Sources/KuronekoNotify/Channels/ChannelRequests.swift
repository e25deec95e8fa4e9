import Foundation
import Kuroneko

/// Where an owner is told: a browser's push subscription, an ntfy topic, a Slack or Discord incoming
/// webhook, a signed JSON webhook of its own, or an e-mail address.
public enum ChannelDestination: Sendable, Hashable {
    case webPush(endpoint: URL, keys: PushSubscriptionKeys)
    case ntfy(topic: URL)
    case slack(webhook: URL)
    case discord(webhook: URL)
    case webhook(url: URL, secret: String)
    /// Sent through the server's SMTP server (`--smtp-url`), not over HTTP.
    case email(address: MailAddress)

    /// `web_push`, `ntfy`, `slack`, `discord`, `webhook`, `email`.
    public var kind: String {
        switch self {
        case .webPush: "web_push"
        case .ntfy: "ntfy"
        case .slack: "slack"
        case .discord: "discord"
        case .webhook: "webhook"
        case .email: "email"
        }
    }

    /// The address an HTTP request goes to (checked by the address guard like every webhook); `nil` for
    /// e-mail.
    public var url: URL? {
        switch self {
        case .webPush(let endpoint, _): endpoint
        case .ntfy(let topic): topic
        case .slack(let webhook), .discord(let webhook): webhook
        case .webhook(let url, _): url
        case .email: nil
        }
    }
}

/// One HTTP request to a channel: a POST with its headers and body.
public struct ChannelRequest: Sendable, Hashable {
    public let url: URL
    public let headers: [String: String]
    public let body: Data
    public var method = "POST"

    public init(url: URL, headers: [String: String], body: Data, method: String = "POST") {
        self.url = url
        self.headers = headers
        self.body = body
        self.method = method
    }
}

/// The request each kind of channel takes for an announcement, in the shape its service documents.
public enum ChannelRequests {
    /// How long a push service keeps an undelivered message (24 hours).
    public static let pushTimeToLive = 86_400

    /// - Parameters:
    ///   - vapid: the server's VAPID identity, for Web Push.
    ///   - shortened: a smaller message, after a push service answered 413.
    public static func request(
        for destination: ChannelDestination, _ announcement: Announcement, vapid: VAPID?, now: Date,
        shortened: Bool = false
    ) throws(PushCryptoError) -> ChannelRequest {
        switch destination {
        case .email: throw .notHTTP
        case .webPush(let endpoint, let keys):
            guard let vapid else { throw .signing }
            var payload: [String: String] = [
                "title": announcement.title, "kind": announcement.kind.rawValue, "tag": announcement.topic,
                "number": announcement.number,
            ]
            if !shortened {
                payload["body"] = announcement.body
                if let link = announcement.link { payload["url"] = link.absoluteString }
                if let action = announcement.actionLink {
                    payload["action_url"] = action.absoluteString
                    payload["action_title"] = announcement.actionTitle
                }
            }
            let json = (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data()
            let body = try WebPushEncryption.encrypt(json, to: keys)
            return ChannelRequest(
                url: endpoint,
                headers: [
                    "Content-Type": "application/octet-stream", "Content-Encoding": "aes128gcm",
                    "TTL": String(pushTimeToLive), "Urgency": announcement.urgent ? "high" : "normal",
                    "Topic": String(announcement.topic.prefix(32)),
                    "Authorization": try vapid.authorization(for: endpoint, now: now),
                ],
                body: body)
        case .ntfy(let topic):
            var headers = [
                "Content-Type": "text/plain; charset=utf-8", "Title": encodedWord(announcement.title),
                "Priority": announcement.urgent ? "4" : "3", "Tags": tags(announcement.kind),
            ]
            if let link = announcement.actionLink ?? announcement.link { headers["Click"] = link.absoluteString }
            return ChannelRequest(url: topic, headers: headers, body: Data(announcement.body.utf8))
        case .slack(let webhook):
            var lines = ["*\(slackEscaped(announcement.title))*", slackEscaped(announcement.body)]
            if let link = announcement.link {
                lines.append("<\(link.absoluteString)|\(announcement.title.prefix(60))>")
            }
            if let action = announcement.actionLink {
                lines.append("<\(action.absoluteString)|\(announcement.actionTitle)>")
            }
            let object: [String: Any] = [
                "text": announcement.title + " — " + announcement.body,
                "blocks": [["type": "section", "text": ["type": "mrkdwn", "text": lines.joined(separator: "\n")]]],
            ]
            return ChannelRequest(url: webhook, headers: json, body: encode(object))
        case .discord(let webhook):
            var embed: [String: Any] = [
                "title": String(announcement.title.prefix(256)), "description": String(announcement.body.prefix(4_096)),
                "color": color(announcement.kind),
            ]
            if let link = announcement.link { embed["url"] = link.absoluteString }
            let object: [String: Any] = [
                "content": String((announcement.title + " — " + announcement.body).prefix(2_000)), "embeds": [embed],
            ]
            return ChannelRequest(url: webhook, headers: json, body: encode(object))
        case .webhook(let url, let secret):
            var object: [String: Any] = [
                "type": "parcel.\(announcement.kind.rawValue)", "title": announcement.title, "body": announcement.body,
                "topic": announcement.topic,
            ]
            if let link = announcement.link { object["url"] = link.absoluteString }
            let body = encode(object)
            var headers = json
            headers[WebhookPayload.signatureHeader] = WebhookPayload.signature(of: body, secret: secret, at: now)
            return ChannelRequest(url: url, headers: headers, body: body)
        }
    }

    private static let json = ["Content-Type": "application/json"]

    private static func encode(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// An RFC 2047 encoded word for a header value beyond ASCII (ntfy decodes them); ASCII as it is.
    static func encodedWord(_ text: String) -> String {
        let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        guard !clean.unicodeScalars.allSatisfy(\.isASCII) else { return clean }
        return "=?UTF-8?B?" + Data(clean.utf8).base64EncodedString() + "?="
    }

    /// ntfy's tags (emoji short codes).
    private static func tags(_ kind: AnnouncementKind) -> String {
        switch kind {
        case .changed: "package"
        case .delivered: "white_check_mark,package"
        case .exception: "warning,package"
        case .arrivingSoon: "truck,package"
        }
    }

    private static func color(_ kind: AnnouncementKind) -> Int {
        switch kind {
        case .changed: 0x3B82F6
        case .delivered: 0x16A34A
        case .exception: 0xDC2626
        case .arrivingSoon: 0xF59E0B
        }
    }

    /// Slack's mrkdwn wants `&`, `<` and `>` escaped.
    private static func slackEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
