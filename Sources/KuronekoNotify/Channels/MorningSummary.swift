import Foundation
import Kuroneko

/// The morning summary: what comes today (the carrier's planned window), what is out for delivery, and what
/// waits after a missed delivery (until when it is kept), for one channel's parcels. Pure: the parcels and the
/// day are given; `nil` when there is nothing to say, so an empty day sends nothing.
public struct MorningSummary: Sendable, Hashable, Codable {
    public enum Section: String, Sendable, Hashable, Codable, CaseIterable {
        case today, out, waiting
    }

    public struct Item: Sendable, Hashable, Codable {
        public let section: Section
        public let number: String
        public let label: String?
        /// `14:00–16:00` for today's, the keeping date (`12/10`) for one waiting.
        public let detail: String?
        /// After a missed delivery, whom to call: the office the page names (else the carrier's service centre)
        /// and its telephone; and the carrier's page to ask for redelivery. `nil` otherwise (and in summaries
        /// stored by an earlier build).
        public var office: String? = nil
        public var telephone: String? = nil
        public var redelivery: String? = nil
    }

    /// `2026-12-04`.
    public let day: String
    public let items: [Item]
    /// How many more there were than the message lists.
    public let more: Int

    /// The most parcels one message lists.
    public static let listed = 20

    public static func compose(_ parcels: [(number: TrackingNumber, label: String?, shipment: Shipment)], today: JapanDateTime)
        -> MorningSummary?
    {
        var items: [Item] = []
        for parcel in parcels where parcel.shipment.returnLeg == nil {
            let shipment = parcel.shipment
            let section: Section
            var detail: String?
            var call: CarrierOffice?
            if shipment.status.code == .outForDelivery {
                section = .out
            } else if let missed = MissedDelivery(shipment) {
                section = .waiting
                detail = String(format: "%02d/%02d", missed.keptUntil.month, missed.keptUntil.day)
                call = missed.office
            } else if shipment.arrives(on: today), let planned = shipment.requestedDelivery ?? shipment.scheduledDelivery {
                section = .today
                detail = planned.windowStart.map { "\($0)–\(planned.windowEnd ?? "")" }
            } else {
                continue
            }
            var item = Item(section: section, number: parcel.number.formatted, label: parcel.label, detail: detail)
            if section == .waiting {
                item.office = call?.name
                item.telephone = call?.telephone
                item.redelivery = shipment.redeliveryPage?.absoluteString
            }
            items.append(item)
        }
        guard !items.isEmpty else { return nil }
        // Out for delivery first, then today's by window, then those waiting.
        let order: [Section: Int] = [.out: 0, .today: 1, .waiting: 2]
        items.sort { ((order[$0.section] ?? 3), $0.detail ?? "~", $0.number) < ((order[$1.section] ?? 3), $1.detail ?? "~", $1.number) }
        return MorningSummary(day: today.dateText, items: Array(items.prefix(listed)), more: max(0, items.count - listed))
    }

    public var json: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    public static func decode(_ data: Data) -> MorningSummary? { try? JSONDecoder().decode(MorningSummary.self, from: data) }
}

extension Announcement {
    /// The morning summary in the channel's language: a title that counts, one line a parcel.
    public init(summary: MorningSummary, language: AnnouncementLanguage, publicURL: URL?) {
        let japanese = language == .japanese
        kind = .morningSummary
        let count = summary.items.count + summary.more
        title = japanese ? "今日の荷物（\(count)件）" : "Today's parcels (\(count))"
        var lines: [String] = []
        for section in MorningSummary.Section.allCases {
            let items = summary.items.filter { $0.section == section }
            guard !items.isEmpty else { continue }
            switch section {
            case .out: lines.append(japanese ? "■ 配達中" : "■ Out for delivery")
            case .today: lines.append(japanese ? "■ 今日お届け予定" : "■ Planned for today")
            case .waiting: lines.append(japanese ? "■ 不在で保管中" : "■ Kept after a missed delivery")
            }
            for item in items {
                let name = item.label.map { "\($0) (\(item.number))" } ?? item.number
                let detail: String
                switch (section, item.detail) {
                case (.waiting, let day?): detail = japanese ? " — \(day)まで保管" : " — kept until \(day)"
                case (_, let window?): detail = " " + window
                default: detail = ""
                }
                lines.append("・\(name)\(detail)")
                // After a missed delivery: whom to call, and where to ask for it again.
                if let telephone = item.telephone {
                    let office = item.office.map { "\($0) " } ?? ""
                    lines.append(japanese ? "　連絡先: \(office)\(telephone)" : "  Call: \(office)\(telephone)")
                }
                if let redelivery = item.redelivery {
                    lines.append(japanese ? "　再配達: \(redelivery)" : "  Redelivery: \(redelivery)")
                }
            }
        }
        if summary.more > 0 { lines.append(japanese ? "ほか\(summary.more)件" : "and \(summary.more) more") }
        body = lines.joined(separator: "\n")
        link = publicURL
        actionLink = nil
        actionTitle = ""
        number = ""
        urgent = false
        topic = "summary-" + summary.day
    }
}
