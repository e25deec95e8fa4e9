import Foundation

/// What "today" means for a parcel, in one place: the web app's 今日, the morning summary and Home Assistant's
/// 今日届く荷物 all ask these.
extension Shipment {
    /// The day the parcel is planned to arrive: the day the recipient asked for, else the carrier's; none once it is
    /// delivered, waiting after a missed delivery (the recipient must act) or going back.
    public var plannedDay: JapanDateTime? {
        guard status.code != .delivered, returnLeg == nil, MissedDelivery(self) == nil,
            let date = (requestedDelivery ?? scheduledDelivery)?.date
        else { return nil }
        return date
    }

    /// Whether it comes on `day` (Japan's day): out for delivery now, or planned for that day.
    public func arrives(on day: JapanDateTime) -> Bool {
        if status.code == .outForDelivery, returnLeg == nil { return true }
        guard let planned = plannedDay else { return false }
        return (planned.year, planned.month, planned.day) == (day.year, day.month, day.day)
    }
}

extension Shipment {
    /// Where the recipient asks for redelivery or another day: the page's own link, else the carrier's page for
    /// the number (the web app's button, Home Assistant's `redelivery_url` and the morning summary say the same).
    public var redeliveryPage: URL? {
        changeDeliveryURL ?? carrier.definition.redeliveryPage(for: trackingNumber)
    }
}
