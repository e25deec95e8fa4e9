import Foundation

/// What "today" means for a parcel, in one place: the web app's 今日, the morning summary and Home Assistant's
/// 今日届く荷物 all ask these.
extension Shipment {
    /// The day the parcel is planned to come: the day it went out for delivery (its row's date) while it is out;
    /// else the day the recipient asked for, else the carrier's. None once it is delivered, held up (調査中: the
    /// carrier's day no longer holds), waiting after a missed delivery (the recipient must act) or going back, or
    /// without a dated row or plan. Stored in the list's forecast column, so `?forecast=today` is one indexed query.
    public var plannedDay: JapanDateTime? {
        guard status.code != .delivered, status.code != .exception, returnLeg == nil, MissedDelivery(self) == nil
        else { return nil }
        if status.code == .outForDelivery,
            let out = events.last(where: { $0.code == .outForDelivery })?.at ?? events.last?.at
        {
            return JapanDateTime(year: out.year, month: out.month, day: out.day)
        }
        return (requestedDelivery ?? scheduledDelivery)?.date
    }

    /// Whether it comes on `day` (Japan's day): out for delivery that day, or planned for it.
    public func arrives(on day: JapanDateTime) -> Bool {
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
