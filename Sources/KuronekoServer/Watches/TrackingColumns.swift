import Foundation
import Kuroneko

/// The tracking columns a sheet gets, the same in `kuroneko import`'s output, `kuroneko list --csv` and
/// `GET /v1/watches?format=csv`: times and dates in ISO 8601, the status in the chosen language.
public enum TrackingColumns {
    public static let names = [
        "carrier", "status_code", "status", "latest_event_at", "latest_event_place", "forecast_date",
        "forecast_window", "requested_window", "delivered_at", "error",
    ]

    public static func cells(for shipment: Shipment, english: Bool) -> [String] {
        let last = shipment.events.last
        let status = english ? (shipment.status.labelEnglish ?? shipment.status.label) : shipment.status.label
        return [
            shipment.carrier.rawValue, shipment.status.code.rawValue, status, last?.at?.iso8601 ?? "",
            last?.place ?? "", shipment.scheduledDelivery.flatMap(\.date).map(isoDate) ?? "",
            shipment.scheduledDelivery.map(window) ?? "", shipment.requestedDelivery.map(requested) ?? "",
            shipment.deliveredAt?.iso8601 ?? "", "",
        ]
    }

    /// A row whose number was not tracked: only the error.
    public static func cells(error: String) -> [String] {
        Array(repeating: "", count: names.count - 1) + [error]
    }

    public static func isoDate(_ date: JapanDateTime) -> String {
        String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }

    private static func window(_ delivery: ScheduledDelivery) -> String {
        guard let start = delivery.windowStart else { return "" }
        return start + "-" + (delivery.windowEnd ?? "")
    }

    private static func requested(_ delivery: ScheduledDelivery) -> String {
        let day = delivery.date.map(isoDate) ?? delivery.raw
        let window = window(delivery)
        return window.isEmpty ? day : day + " " + window
    }

    /// A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. A cell that a
    /// spreadsheet would run as a formula (=, +, -, @ first) is written as text with a leading apostrophe.
    public static func quoted(_ value: String) -> String {
        var value = value
        if let first = value.first, "=+-@".contains(first), value.count > 1 { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
