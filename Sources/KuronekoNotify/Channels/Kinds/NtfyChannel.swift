import Foundation
import Kuroneko

/// An ntfy topic (`"url": "https://ntfy.sh/my-parcels"`, or a home ntfy server's): the body is the message,
/// the title an RFC 2047 encoded word, urgent messages priority 4, a click-through link.
public struct NtfyChannel: ChannelKind {
    public let name = "ntfy"
    public let title = ChannelWords("ntfy", "ntfy")
    public let fields = [ChannelField.url(for: "ntfy", placeholder: "https://ntfy.sh/my-parcels")]

    public init() {}

    public func message(for announcement: ChannelAnnouncement, settings: URLChannelSettings, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        let topic = try address(settings)
        let announcement = announcement.first
        var headers = [
            "Content-Type": "text/plain; charset=utf-8", "Title": ChannelText.encodedWord(announcement.title),
            "Priority": announcement.urgent ? "4" : "3", "Tags": Self.tags(announcement.kind),
        ]
        if let link = announcement.actionLink ?? announcement.link { headers["Click"] = link.absoluteString }
        return .http(ChannelRequest(url: topic, headers: headers, body: Data(announcement.body.utf8)))
    }

    /// ntfy's tags (emoji short codes).
    private static func tags(_ kind: AnnouncementKind) -> String {
        switch kind {
        case .changed: "package"
        case .delivered: "white_check_mark,package"
        case .exception: "warning,package"
        case .arrivingSoon: "truck,package"
        case .stalled: "hourglass,package"
        case .overdue: "hourglass,warning"
        case .keptReminder: "alarm_clock,package"
        case .morningSummary: "sunrise,package"
        case .pageChanged: "rotating_light"
        case .pageRestored, .mailboxRestored: "white_check_mark"
        case .mailboxFailing: "warning"
        }
    }
}
