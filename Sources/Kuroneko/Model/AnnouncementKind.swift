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

    /// The kind of a new status: its own when it is a delivery or a problem, else `changed`.
    public static func of(_ code: StatusCode) -> AnnouncementKind {
        switch code {
        case .delivered: .delivered
        case .attemptFailed, .availableForPickup, .exception, .returned: .exception
        default: .changed
        }
    }
}
