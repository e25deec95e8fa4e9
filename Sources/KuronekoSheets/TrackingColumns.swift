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

    /// The columns of an answer. `known` is the carrier the parcel is known to be at (the watch's, or the one
    /// the user named); a number that no carrier knows yet, with none named and more than one carrier its form
    /// allows, is written as not known yet, naming the carriers asked, never as the first one's.
    /// `carrierNamesEnglish` writes the carrier in the other language than the rest (a sheet's choice).
    public static func cells(
        for shipment: Shipment, english: Bool, known: Carrier? = nil, carrierNamesEnglish: Bool? = nil
    ) -> [String] {
        let last = shipment.events.last
        var status = english ? (shipment.status.labelEnglish ?? shipment.status.label) : shipment.status.label
        let namesEnglish = carrierNamesEnglish ?? english
        var carrier = carrierName(shipment.carrier, english: namesEnglish)
        if let unknown = unknownCarrier(shipment, known: known) {
            let names = unknown.map { carrierName($0, english: namesEnglish) }
            carrier = namesEnglish ? "unknown" : "確認中"
            status =
                english
                ? "carrier not known yet (not registered at \(names.joined(separator: ", ")))"
                : "運送会社を確認中（\(names.joined(separator: "・"))に未登録）"
        }
        return [
            carrier, shipment.status.code.rawValue, status, last?.at?.iso8601 ?? "",
            last?.place ?? "", shipment.scheduledDelivery.flatMap(\.date).map(isoDate) ?? "",
            shipment.scheduledDelivery.map(window) ?? "", shipment.requestedDelivery.map(requested) ?? "",
            shipment.deliveredAt?.iso8601 ?? "", "",
        ]
    }

    /// The carriers asked, when `shipment` says none of them knows the number and its carrier is not otherwise
    /// known (named, or the only one its form allows); `nil` when the carrier is known.
    public static func unknownCarrier(_ shipment: Shipment, known: Carrier?) -> [Carrier]? {
        let candidates = shipment.trackingNumber.candidates
        guard shipment.status.code == .notFound, known == nil, candidates.count > 1 else { return nil }
        return shipment.carriersAsked ?? [shipment.carrier]
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
