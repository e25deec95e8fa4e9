import Foundation
import KuronekoNotify

/// A channel kind of the tests, in one file: a pager service that needs two secrets (an API key and a signing
/// key) and a server setting (where the service is, with no default). Registering it is one line
/// (`ChannelKindRegistry.standard.registering(PagerChannel())`); the API, the OpenAPI document, the command
/// line and the web app's form then offer it with no edit elsewhere.
public struct PagerChannel: ChannelKind {
    public let name = "pager"
    public let title = ChannelWords("ポケベル", "Pager")
    public let fields = [
        ChannelField("api_key", .secret, label: ChannelWords("APIキー", "API key")),
        ChannelField(
            "signing_key", .secret, label: ChannelWords("署名キー", "Signing key"),
            hint: ChannelWords("ポケベル側で発行", "issued by the pager service"),
            environment: "KURONEKO_PAGER_SIGNING_KEY"),
    ]
    public let serverSettings = [ChannelServerSetting("origin", .url, help: "where the pager service is")]

    public struct Settings: Codable, Sendable, Hashable {
        public var apiKey: String
        public var signingKey: String
    }

    public init() {}

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        Settings(
            apiKey: try ChannelField.secret("api_key", in: object, kind: name, limit: 64),
            signingKey: try ChannelField.secret("signing_key", in: object, kind: name, limit: 64))
    }

    public func guardedURL(of settings: Settings) -> String? { nil }

    /// The key's last four characters only.
    public func shown(_ settings: Settings) -> String? { "key …" + settings.apiKey.suffix(4) }

    public func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        guard let origin = context.serverSettings["origin"].flatMap(URL.init(string:)),
            let url = URL(string: "/v1/pages", relativeTo: origin)?.absoluteURL
        else { throw ChannelMessageError("the pager service's origin is not set") }
        let body = Data(announcement.first.title.utf8)
        return .http(
            ChannelRequest(
                url: url,
                headers: [
                    "Authorization": "Key " + settings.apiKey,
                    "X-Pager-Signature": WebhookPayload.signature(of: body, secret: settings.signingKey, at: context.now),
                ],
                body: body, guarded: false))
    }
}
