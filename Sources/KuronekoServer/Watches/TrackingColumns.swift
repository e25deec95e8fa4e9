import Foundation
import Kuroneko

/// The tracking columns a sheet gets, the same in `kuroneko import`'s output, `kuroneko list --csv` and
/// `GET /v1/watches?format=csv`: times and dates in ISO 8601, the status in the chosen language.
public enum TrackingColumns {
    public static let names = [
        "carrier", "status_code", "status", "latest_event_at", "latest_event_place", "forecast_date",
        "forecast_window", "requested_window", "delivered_at", "error",
    ]

    /// The same columns' headers in Japanese, for a sheet in Japanese.
    public static let japaneseNames = [
        "運送会社", "状態コード", "状態", "最新の日時", "最新の場所", "お届け予定日", "お届け予定時間帯", "お届け希望",
        "配達完了日時", "エラー",
    ]

    public static func names(english: Bool) -> [String] { english ? names : japaneseNames }

    /// A carrier as a sheet names it: its code in English (`yamato`), its name in Japanese (ヤマト運輸).
    public static func carrierName(_ carrier: Carrier, english: Bool) -> String {
        guard !english else { return carrier.rawValue }
        return carrier.name
    }

    public static func cells(for shipment: Shipment, english: Bool) -> [String] {
        let last = shipment.events.last
        let status = english ? (shipment.status.labelEnglish ?? shipment.status.label) : shipment.status.label
        return [
            carrierName(shipment.carrier, english: english), shipment.status.code.rawValue, status, last?.at?.iso8601 ?? "",
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
}
