import Foundation
import Kuroneko

/// A Discord webhook (`"url"`): the content line and one embed, within Discord's lengths. Nobody is
/// mentioned (`allowed_mentions` parses nothing), so a label a mail's sender chose cannot ping `@everyone`.
public struct DiscordChannel: ChannelKind {
    public let name = "discord"
    public let title = ChannelWords("Discord", "Discord")
    public let fields = [ChannelField.url(for: "Discord", placeholder: "https://discord.com/api/webhooks/…")]

    public init() {}

    public func message(for announcement: ChannelAnnouncement, settings: URLChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let webhook = try address(settings)
        let announcement = announcement.first
        var embed: [String: Any] = [
            "title": String(announcement.title.prefix(256)), "description": String(announcement.body.prefix(4_096)),
            "color": Self.color(announcement.kind),
        ]
        if let link = announcement.link { embed["url"] = link.absoluteString }
        let object: [String: Any] = [
            "content": String((announcement.title + " — " + announcement.body).prefix(2_000)), "embeds": [embed],
            "allowed_mentions": ["parse": [String]()],
        ]
        return .http(ChannelRequest(url: webhook, headers: ChannelText.json, body: ChannelText.encode(object)))
    }

    private static func color(_ kind: AnnouncementKind) -> Int {
        switch kind {
        case .changed: 0x3B82F6
        case .delivered: 0x16A34A
        case .exception: 0xDC2626
        case .arrivingSoon: 0xF59E0B
        case .stalled, .overdue: 0xF59E0B
        case .keptReminder: 0xDC2626
        case .morningSummary: 0x0EA5E9
        case .pageChanged: 0x7C3AED
        case .mailboxFailing: 0x7C3AED
        case .pageRestored, .mailboxRestored: 0x16A34A
        }
    }
}
