import Foundation
import Kuroneko

/// An e-mail address (`"address"`), sent through the server's SMTP server, not over HTTP.
public struct EmailChannel: ChannelKind {
    public let name = "email"
    public let title = ChannelWords("メール", "E-mail")
    public let fields = [
        ChannelField(
            "address", .email, label: ChannelWords("メールアドレス", "E-mail address"), placeholder: "me@example.com")
    ]

    /// The address. Channels added before 2026-12 kept it as `url`: read either, written as `address`.
    public struct Settings: Codable, Sendable, Hashable {
        public var address: String

        public init(address: String) {
            self.address = address
        }

        enum CodingKeys: String, CodingKey {
            case address, url
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            address = try container.decodeIfPresent(String.self, forKey: .address)
                ?? container.decode(String.self, forKey: .url)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
        }
    }

    public init() {}

    public func unavailable(on server: ChannelServer) -> String? {
        server.sendsMail
            ? nil
            : "this server sends no e-mail: its operator has not set KURONEKO_SMTP_URL and KURONEKO_SMTP_FROM "
                + "(serve --smtp-url, --smtp-from)"
    }

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> Settings {
        guard let text = object["address"] as? String else {
            throw ChannelSettingsError("address is missing or not a string; an email channel needs one, e.g. me@example.jp")
        }
        do {
            return Settings(address: try MailAddress(parsing: text).text)
        } catch {
            throw ChannelSettingsError("address \"\(text.prefix(80))\" \(error)")
        }
    }

    public func guardedURL(of settings: Settings) -> String? { nil }
    public func shown(_ settings: Settings) -> String? { settings.address }

    public func message(for announcement: ChannelAnnouncement, settings: Settings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        guard let address = try? MailAddress(parsing: settings.address) else {
            throw ChannelMessageError("the email channel's address cannot be read")
        }
        return .mail(address)
    }

    /// What the SMTP server answered: 2xx delivered; anything else tried again with backoff.
    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        outcome.delivered ? .delivered : .retry(after: nil)
    }
}
