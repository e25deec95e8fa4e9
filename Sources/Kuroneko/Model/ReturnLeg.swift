/// Where a parcel that goes back to its sender stands: once an event (or the status) says it is sent back
/// (返品, 返送, 差出人に返送), later transit rows belong to the way back, and a delivery after that is the
/// delivery back to the sender, not to the recipient.
public enum ReturnLeg: String, Sendable, Hashable, CaseIterable {
    /// On its way back to the sender.
    case returning
    /// Back with the sender: nothing more will happen.
    case returned
}

extension Shipment {
    /// The return leg the parcel is on, or `nil` when it is not going back.
    public var returnLeg: ReturnLeg? {
        guard status.code == .returned || events.contains(where: { $0.code == .returned }) else { return nil }
        return status.code == .delivered || status.isTerminal ? .returned : .returning
    }
}

extension AnnouncementKind {
    /// The kind of a shipment's new status, as its code says, except that a parcel delivered back to its sender
    /// is an exception for the person waiting for it, never `delivered`.
    public static func of(_ shipment: Shipment) -> AnnouncementKind {
        shipment.returnLeg == .returned ? .exception : of(shipment.status.code)
    }
}
