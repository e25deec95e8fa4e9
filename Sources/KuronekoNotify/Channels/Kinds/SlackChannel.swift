import Foundation
import Kuroneko

/// A Slack incoming webhook (`"url"`): a mrkdwn section with the title, the line and the links. Every text is
/// escaped (`&`, `<`, `>`), the fallback too, so a label cannot write `<!everyone>` or a link of its own.
public struct SlackChannel: ChannelKind {
    public let name = "slack"
    public let title = ChannelWords("Slack", "Slack")
    public let fields = [ChannelField.url(for: "Slack", placeholder: "https://hooks.slack.com/services/…")]

    public init() {}

    public func message(for announcement: ChannelAnnouncement, settings: URLChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let webhook = try address(settings)
        let announcement = announcement.first
        var lines = ["*\(Self.escaped(announcement.title))*", Self.escaped(announcement.body)]
        if let link = announcement.link {
            lines.append("<\(link.absoluteString)|\(Self.escaped(String(announcement.title.prefix(60))))>")
        }
        if let action = announcement.actionLink {
            lines.append("<\(action.absoluteString)|\(Self.escaped(announcement.actionTitle))>")
        }
        let object: [String: Any] = [
            "text": Self.escaped(announcement.title + " — " + announcement.body),
            "blocks": [["type": "section", "text": ["type": "mrkdwn", "text": lines.joined(separator: "\n")]]],
        ]
        return .http(ChannelRequest(url: webhook, headers: ChannelText.json, body: ChannelText.encode(object)))
    }

    /// Slack's mrkdwn wants `&`, `<` and `>` escaped.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
