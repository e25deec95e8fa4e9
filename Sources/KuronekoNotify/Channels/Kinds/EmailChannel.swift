import Foundation
import Kuroneko

/// An e-mail address (`"address"`), sent through the server's SMTP server, not over HTTP.
public struct EmailChannel: ChannelKind {
    public let name = "email"
    public let fields = ["address"]
    public let requirement: ChannelRequirement? = .mail

    public init() {}

    public func settings(from object: [String: Any]) throws(ChannelSettingsError) -> ChannelSettings {
        guard let text = object["address"] as? String else {
            throw ChannelSettingsError("address is missing or not a string; an email channel needs one, e.g. me@example.jp")
        }
        do {
            return ChannelSettings(url: try MailAddress(parsing: text).text)
        } catch {
            throw ChannelSettingsError("address \"\(text.prefix(80))\" \(error)")
        }
    }

    public func guardedURL(of settings: ChannelSettings) -> String? { nil }

    public func message(for announcement: ChannelAnnouncement, settings: ChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        guard let text = settings.url, let address = try? MailAddress(parsing: text) else {
            throw ChannelMessageError("the email channel's address cannot be read")
        }
        return .mail(address)
    }

    /// What the SMTP server answered: 2xx delivered; anything else tried again with backoff.
    public func verdict(of outcome: DeliveryOutcome, at now: Date) -> ChannelVerdict {
        outcome.delivered ? .delivered : .retry(after: nil)
    }
}
