import Foundation

/// When a parcel still on its way is late: past the end of the delivery it was planned for (the day and window
/// the person asked for, else the carrier's forecast; a day without a window ends at midnight), or, with no
/// day planned, past the carrier's usual time from its first event (``withoutPlan``).
public enum Overdue {
    /// The usual time from a domestic parcel's first event to its delivery, with a day to spare (the carriers
    /// deliver most parcels within one to three days): past it, a parcel with no planned day is late.
    public static let withoutPlan: TimeInterval = 4 * 86_400

    /// The moment after which the parcel is late; `nil` for a finished parcel, one held for its recipient to
    /// collect or ask for (it waits on them, not on the carrier), one without any dated event or plan, or an
    /// international one (whose times vary too much to call one late).
    public static func dueAt(_ shipment: Shipment) -> Date? {
        guard !shipment.status.isTerminal, shipment.returnLeg == nil, shipment.status.code != .availableForPickup
        else { return nil }
        if let planned = shipment.requestedDelivery?.date != nil ? shipment.requestedDelivery : shipment.scheduledDelivery,
            let day = planned.date
        {
            return end(of: day, window: planned.windowEnd)
        }
        guard shipment.trackingNumber.format != .international,
            let first = shipment.events.compactMap({ $0.at?.instant }).min()
        else { return nil }
        return first.addingTimeInterval(withoutPlan)
    }

    /// The end of a planned delivery: the window's end on its day, else the day's end (midnight, Japan time).
    static func end(of day: JapanDateTime, window end: String?) -> Date? {
        let parts = end?.split(separator: ":").compactMap { Int($0) } ?? []
        if parts.count == 2, let time = JapanDateTime.TimeOfDay(hour: parts[0], minute: parts[1]),
            let moment = JapanDateTime(year: day.year, month: day.month, day: day.day, time: time)
        {
            return moment.instant
        }
        guard let start = JapanDateTime(year: day.year, month: day.month, day: day.day) else { return nil }
        return start.instant.addingTimeInterval(86_400)
    }
}
