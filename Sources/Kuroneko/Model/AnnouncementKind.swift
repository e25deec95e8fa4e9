/// What a channel is told: a parcel's new status, its delivery, a problem that needs the person, or that it
/// is about to arrive. Which kinds a channel hears is its own choice.
public enum AnnouncementKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Any new status.
    case changed
    case delivered
    /// Brought back, held for pickup, under investigation, returned: something for the person to do.
    case exception
    /// The forecast window starts soon.
    case arrivingSoon = "arriving_soon"
    /// No new event for longer than the parcel's status allows (``StallLimits``): said once per stall.
    case stalled
    /// Not delivered past the end of its planned delivery (``Overdue``): said once per plan.
    case overdue
    /// The day before a parcel kept after a missed delivery goes back to its sender (``MissedDelivery``): said once
    /// per keeping.
    case keptReminder = "kept_reminder"
    /// For the server's operator: a carrier's page is no longer understood (its layout changed, most likely).
    /// Heard only by channels that name it.
    case pageChanged = "page_changed"
    /// For the server's operator: the carrier's pages are read again. Heard by channels that hear ``pageChanged``.
    case pageRestored = "page_restored"
    /// For the server's operator: the mailbox read for shipping mails (`serve --mailbox`) cannot be read (login,
    /// TLS, a folder gone). Heard by channels that hear ``pageChanged``, the operator's channels.
    case mailboxFailing = "mailbox_failing"
    /// For the server's operator: the mailbox is read again. Heard by channels that hear ``pageChanged``.
    case mailboxRestored = "mailbox_restored"
    /// Once a day at the channel's time (07:30 Japan time unless it says another): what is planned for today,
    /// out for delivery, or waiting after a missed delivery; nothing on a day without any. Heard only by channels
    /// that name it.
    case morningSummary = "morning_summary"

    /// What a channel may name in its `kinds`: the parcels' kinds and ``pageChanged``, which stands for all the
    /// operator's news (a carrier's page and the mailbox, failing and back).
    public static let choosable = allCases.filter { !$0.isForOperator || $0 == .pageChanged }
    /// What a channel hears when it names nothing: every parcel's news, not the operator's.
    public static let parcelKinds = allCases.filter { !$0.isForOperator && $0 != .morningSummary }
    /// What a member's own channel hears when it names nothing: what needs the person (a problem, a missed
    /// delivery and its keeping's last day, a parcel stalled or late), not every change of every parcel of the list.
    public static let memberKinds: [AnnouncementKind] = [.exception, .keptReminder, .stalled, .overdue]

    /// Whether the kind is about the server rather than a parcel.
    public var isForOperator: Bool {
        switch self {
        case .pageChanged, .pageRestored, .mailboxFailing, .mailboxRestored: true
        case .changed, .delivered, .exception, .arrivingSoon, .stalled, .overdue, .keptReminder, .morningSummary: false
        }
    }

    /// The kind of a new status: its own when it is a delivery or a problem, else `changed`.
    public static func of(_ code: StatusCode) -> AnnouncementKind {
        switch code {
        case .delivered: .delivered
        case .attemptFailed, .availableForPickup, .exception, .returned: .exception
        default: .changed
        }
    }
}
