import Foundation
import Kuroneko

/// A signed JSON webhook of the owner's own (`"url"`): `{"type": "parcel.changed", "title", "body", "topic",
/// "url"?}`, signed like watch webhooks with a secret made when the channel is added and shown once.
public struct WebhookChannel: ChannelKind {
    public let name = "webhook"

    public init() {}

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> ChannelSettings {
        guard let url = object["url"] as? String, url.count <= 2_048 else {
            throw ChannelSettingsError("url is missing or not a string; a webhook channel needs its URL")
        }
        return ChannelSettings(url: url, secret: Secrets.random(prefix: "whsec_"))
    }

    public func message(for announcement: ChannelAnnouncement, settings: ChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let url = try address(settings)
        guard let secret = settings.secret else { throw ChannelMessageError("the webhook channel has no secret") }
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
