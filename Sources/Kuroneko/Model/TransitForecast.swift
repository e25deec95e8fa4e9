import Foundation

/// When a parcel without a planned day is likely to come, learnt from the owner's own delivered parcels: how many
/// days each took from its first row to its delivery, by carrier and product (宅急便, ネコポス, …), first office and
/// destination prefecture. The most specific group with enough parcels answers (carrier and product with office
/// and prefecture; with prefecture; with office; carrier and product; the carrier as a whole); its median is the
/// day, its 10th and 90th percentiles the range. An estimate, never the carrier's word. Pure.
public enum TransitForecast {
    /// One delivered parcel's journey.
    public struct Sample: Sendable, Hashable {
        public let carrier: Carrier
        /// The carrier's product as its page names it (`宅急便コンパクト`), when it does.
        public var product: String? = nil
        /// The office of its first row (`羽田クロノゲートベース`), when the page names one.
        public let origin: String?
        /// The recipient's prefecture, when the parcel's record has it.
        public let destination: String?
        public let days: Int
        /// Whether it came by the carrier's planned day, when the carrier planned one.
        public var onTime: Bool? = nil

        public init(carrier: Carrier, origin: String?, destination: String?, days: Int) {
            self.carrier = carrier
            self.origin = origin
            self.destination = destination
            self.days = days
        }

        /// The journey of a delivered shipment; `nil` for one not delivered, going back, or without dated rows
        /// (or one that took over `longest` days: a parcel held for weeks says nothing of the usual time).
        public init?(_ shipment: Shipment, destination: String?) {
            guard shipment.status.code == .delivered, shipment.returnLeg == nil,
                let first = shipment.events.first(where: { $0.at != nil }), let start = first.at,
                let end = shipment.deliveredAt ?? shipment.events.last(where: { $0.code == .delivered })?.at
            else { return nil }
            let days = TransitForecast.days(from: start, to: end)
            guard (0...TransitForecast.longest).contains(days) else { return nil }
            self.init(carrier: shipment.carrier, origin: first.place, destination: destination, days: days)
            product = shipment.product
            if let planned = (shipment.requestedDelivery ?? shipment.scheduledDelivery)?.date {
                onTime = TransitForecast.days(from: planned, to: end) <= 0
            }
        }
    }

    /// How the estimate was found, most specific first (the first three and `product` within the carrier's
    /// product, when the parcel's page names one).
    public enum Basis: String, Sendable, Hashable, CaseIterable {
        case route = "carrier_office_prefecture", destination = "carrier_prefecture", origin = "carrier_office"
        case product = "carrier_product"
        case carrier
    }

    public struct Estimate: Sendable, Hashable {
        public let day: JapanDateTime
        public let earliest: JapanDateTime
        public let latest: JapanDateTime
        public let basis: Basis
        /// How many delivered parcels it was learnt from.
        public let parcels: Int
    }

    /// The fewest parcels a group needs to answer.
    public static let minimumParcels = 5
    public static let longest = 30

    /// The estimate for a parcel of `product` at `carrier` whose first row was at `origin` on `start`, going to
    /// `destination`.
    public static func estimate(
        _ samples: [Sample], carrier: Carrier, product: String? = nil, origin: String?, destination: String?,
        start: JapanDateTime
    ) -> Estimate? {
        let ours = samples.filter { $0.carrier == carrier }
        // A parcel whose page names no product is compared with all the carrier's.
        let kind = product == nil ? ours : ours.filter { $0.product == product }
        let groups: [(Basis, [Sample])] = [
            (.route, origin == nil || destination == nil ? [] : kind.filter { $0.origin == origin && $0.destination == destination }),
            (.destination, destination == nil ? [] : kind.filter { $0.destination == destination }),
            (.origin, origin == nil ? [] : kind.filter { $0.origin == origin }),
            (.product, product == nil ? [] : kind),
            (.carrier, ours),
        ]
        guard let (basis, group) = groups.first(where: { $0.1.count >= minimumParcels }) else { return nil }
        let days = group.map(\.days).sorted()
        func rank(_ fraction: Double) -> Int { percentile(days, fraction) }
        func after(_ count: Int) -> JapanDateTime {
            let moved = JapanDateTime(start.instant.addingTimeInterval(Double(count) * 86_400))
            return JapanDateTime(year: moved.year, month: moved.month, day: moved.day) ?? moved
        }
        return Estimate(
            day: after(rank(0.5)), earliest: after(rank(0.1)), latest: after(rank(0.9)), basis: basis, parcels: group.count)
    }

    /// A shop's days to deliver, per carrier and destination prefecture (`nil`: not known).
    public struct Row: Sendable, Hashable {
        public let carrier: Carrier
        public let destination: String?
        public let parcels: Int
        public let median: Int
        public let p90: Int
        /// Of the parcels the carrier planned a day for, how many came by it, and how many there were.
        public let onTime: Int
        public let planned: Int
    }

    /// The rows of a shop's days-to-deliver table, by carrier then prefecture (unknown last).
    public static func table(_ samples: [Sample]) -> [Row] {
        let groups = Dictionary(grouping: samples) { "\($0.carrier.rawValue)\u{1}\($0.destination ?? "")" }
        return groups.values.compactMap { group -> Row? in
            guard let first = group.first else { return nil }
            let days = group.map(\.days).sorted()
            let planned = group.compactMap(\.onTime)
            return Row(
                carrier: first.carrier, destination: first.destination, parcels: group.count, median: percentile(days, 0.5),
                p90: percentile(days, 0.9), onTime: planned.filter { $0 }.count, planned: planned.count)
        }.sorted {
            ($0.carrier.rawValue, $0.destination == nil ? 1 : 0, $0.destination ?? "")
                < ($1.carrier.rawValue, $1.destination == nil ? 1 : 0, $1.destination ?? "")
        }
    }

    /// The nearest-rank percentile of sorted days.
    static func percentile(_ sorted: [Int], _ fraction: Double) -> Int {
        sorted[max(0, min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }

    /// Calendar days between two Japan-time moments.
    static func days(from start: JapanDateTime, to end: JapanDateTime) -> Int {
        JapanDateTime.daysSinceEpoch(year: end.year, month: end.month, day: end.day)
            - JapanDateTime.daysSinceEpoch(year: start.year, month: start.month, day: start.day)
    }
}
