import Foundation
import Kuroneko

/// A destination an owner is told on, as stored: what it is (`kind`, and `destination` as its JSON), which
/// of the owner's parcels (`numbers`, `nil` for all) and which announcements (`kinds`) it hears, in which
/// language, and when it keeps quiet.
public struct ChannelRecord: Sendable, Hashable {
    public let id: Int64
    public let owner: WatchOwner
    public let kind: String
    /// The destination's settings as JSON (an endpoint and keys, a URL, a secret), never shown whole.
    public let destination: Data
    public let numbers: [String]?
    public let kinds: [AnnouncementKind]
    public let language: String
    /// `22:00-07:00`: announcements wait for its end (all but urgent ones), in Japan time.
    public let quietHours: String?
    public let createdAt: Date
    /// When the channel's service refused it for good (404 or 410 from a push service), and why.
    public let endedAt: Date?
    public let endedReason: String?
    /// What the deliverer keeps of the channel between attempts (JSON), if anything.
    public var state: Data? = nil
    /// The member whose own channel it is (their phone, their quiet hours and events); `nil`: the list's.
    public var member: Int64? = nil
    /// The member's name for the device (「ママのiPhone」).
    public var device: String? = nil

    /// Whether the channel hears `kind` for `number`: `changed` means every new status.
    public func hears(_ kind: AnnouncementKind, for number: TrackingNumber?) -> Bool {
        guard endedAt == nil else { return false }
        // The operator's news is heard by channels that name page_changed, whatever numbers they follow.
        if kind.isForOperator { return kinds.contains(.pageChanged) }
        // The morning summary is asked for by name, and covers the channel's numbers itself.
        if kind == .morningSummary { return kinds.contains(.morningSummary) }
        if let numbers, let number, !numbers.contains(number.digits) { return false }
        // A stall is heard by a channel that hears exceptions (it needs the person too), or names it.
        // A stall, a late parcel and the last day before a parcel goes back are problems too.
        if [.stalled, .overdue, .keptReminder].contains(kind) { return kinds.contains(kind) || kinds.contains(.exception) }
        return kinds.contains(kind) || (kind != .arrivingSoon && kinds.contains(.changed))
    }
}

/// A channel to add.
public struct NewChannel: Sendable, Hashable {
    public let kind: String
    public let destination: Data
    public let numbers: [String]?
    public let kinds: [AnnouncementKind]
    public let language: String
    public let quietHours: String?
    /// For a channel that hears the morning summary: its minute of the day, Japan time (07:30 when `nil`).
    public var summaryMinute: Int? = nil

    public init(
        kind: String, destination: Data, numbers: [String]?, kinds: [AnnouncementKind], language: String,
        quietHours: String?
    ) {
        self.kind = kind
        self.destination = destination
        self.numbers = numbers
        self.kinds = kinds
        self.language = language
        self.quietHours = quietHours
    }
}

/// An announcement waiting in a channel's outbox, with what sending it needs.
public struct PendingChannelDelivery: Sendable, Hashable {
    public let outboxID: Int64
    public let channel: ChannelRecord
    public let kind: AnnouncementKind
    public let label: String?
    /// The shipment as the API serves it.
    public let shipment: Data
    public let attempts: Int
    public let createdAt: Date
}

/// The most channels an owner may have, and the most announcements one digest folds.
public enum ChannelLimits {
    public static let channelsPerOwner = 20
    public static let digestSize = 50
}
