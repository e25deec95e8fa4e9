import Foundation

/// When a parcel's forecast window starts: what "arriving soon" is announced before, once per window (a
/// window that moves is another window, announced again).
public enum ArrivingSoon {
    /// The forecast window of a parcel still on its way: a key naming it, and the moment it starts (Japan
    /// time); `nil` without a dated window with a start, or for a finished parcel.
    public static func window(of shipment: Shipment) -> (key: String, start: Date)? {
        guard !shipment.status.isTerminal, let forecast = shipment.scheduledDelivery, let day = forecast.date,
            let startText = forecast.windowStart
        else { return nil }
        let parts = startText.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2, let time = JapanDateTime.TimeOfDay(hour: parts[0], minute: parts[1]),
            let start = JapanDateTime(year: day.year, month: day.month, day: day.day, time: time)
        else { return nil }
        return ("\(day.dateText) \(startText)-\(forecast.windowEnd ?? "")", start.instant)
    }
}
