import Foundation
import Kuroneko
import KuronekoCrypto

/// A signed JSON webhook of the owner's own (`"url"`): `{"type": "parcel.changed", "title", "body", "topic",
/// "url"?}`, signed like watch webhooks with a secret made when the channel is added and shown once.
public struct WebhookChannel: ChannelKind {
    public let name = "webhook"
    public let title = ChannelWords("Webhook", "Webhook")
    public let fields = [ChannelField.url(for: "webhook", placeholder: "https://shop.example/kuroneko-hook")]

    /// The URL and the signing secret the server made.
    public struct Settings: Codable, Sendable, Hashable {
        public var url: String
        public var secret: String

        public init(url: String, secret: String) {
            self.url = url
            self.secret = secret
        }
    }

    public init() {}

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        Settings(url: try ChannelField.url(in: object, kind: name), secret: Secrets.random(prefix: "whsec_"))
    }

    public func guardedURL(of settings: Settings) -> String? { settings.url }
    public func shown(_ settings: Settings) -> String? { settings.url }
    public func shownOnce(_ settings: Settings) -> [String: String] { ["secret": settings.secret] }

    public func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let url = try ChannelField.address(settings.url, kind: name)
        let secret = settings.secret
        let announcement = announcement.first
        var object: [String: Any] = [
            "type": (announcement.kind.isForOperator ? "server." : "parcel.") + announcement.kind.rawValue, "title": announcement.title, "body": announcement.body,
            "topic": announcement.topic,
        ]
        if let link = announcement.link { object["url"] = link.absoluteString }
        let body = ChannelText.encode(object)
        var headers = ChannelText.json
        headers[WebhookPayload.signatureHeader] = WebhookPayload.signature(of: body, secret: secret, at: context.now)
        return .http(ChannelRequest(url: url, headers: headers, body: body))
    }
}
