import Foundation
import Kuroneko

/// A made-up history of delivered parcels with a known law, for the arrival estimate's test and benchmark: two
/// carriers (Yamato: 宅急便, and ネコポス a day slower; Sagawa: 飛脚宅配便), three first offices, five destination
/// prefectures; each route takes its base days (by distance), plus one day for a share of parcels (Sagawa's a
/// little more often), plus, rarely, two or three days of delay. Seeded: the same seed gives the same parcels.
public struct SimulatedDeliveries {
    public struct Parcel: Sendable, Hashable {
        public let carrier: Carrier
        public let product: String
        public let origin: String
        public let destination: String
        /// The first row's moment, and the days to delivery.
        public let start: JapanDateTime
        public let days: Int
    }

    public static let origins = ["羽田クロノゲートベース", "大阪ベース", "札幌ベース"]
    public static let destinations = ["東京都", "大阪府", "北海道", "福岡県", "沖縄県"]

    /// Days from each origin (rows) to each destination (columns) for most parcels.
    static let base: [[Int]] = [
        [1, 1, 2, 2, 3],
        [1, 1, 2, 1, 3],
        [2, 2, 1, 3, 4],
    ]

    private var state: UInt64

    public init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    /// xorshift64*: small, fast, and the same everywhere.
    private mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    private mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    private mutating func pick(_ count: Int) -> Int { Int(next() % UInt64(count)) }

    /// One parcel that started `daysAgo` days before `now` (at a time of day between 8:00 and 20:00).
    public mutating func parcel(daysAgo: Double, now: Date) -> Parcel {
        let carrier: Carrier = uniform() < 0.6 ? .yamato : .sagawa
        let origin = pick(Self.origins.count)
        // Most parcels go to the big cities.
        let weights = [0.35, 0.25, 0.15, 0.15, 0.10]
        var roll = uniform()
        var destination = 0
        while destination < weights.count - 1, roll >= weights[destination] {
            roll -= weights[destination]
            destination += 1
        }
        var days = Self.base[origin][destination]
        let product = carrier == .sagawa ? "飛脚宅配便" : uniform() < 0.25 ? "ネコポス" : "宅急便"
        if product == "ネコポス" { days += 1 }
        if uniform() < (carrier == .yamato ? 0.2 : 0.3) { days += 1 }
        if uniform() < 0.04 { days += 2 + pick(2) }
        let hour = 8 + pick(12)
        let start = JapanDateTime(now.addingTimeInterval(-daysAgo * 86_400 + Double(hour - 14) * 3_600))
        return Parcel(
            carrier: carrier, product: product, origin: Self.origins[origin], destination: Self.destinations[destination], start: start, days: days)
    }

    /// `count` parcels spread over the `span` days before `now`, oldest first.
    public mutating func history(_ count: Int, span: Double, now: Date) -> [Parcel] {
        (0..<count).map { index in parcel(daysAgo: span - span * Double(index) / Double(max(1, count)), now: now) }
    }
}

extension SimulatedDeliveries.Parcel {
    /// As the estimate learns from it.
    public var sample: TransitForecast.Sample {
        var sample = TransitForecast.Sample(carrier: carrier, origin: origin, destination: destination, days: days)
        sample.product = product
        return sample
    }

    /// The day it is delivered.
    public var deliveryDay: JapanDateTime {
        let moved = JapanDateTime(start.instant.addingTimeInterval(Double(days) * 86_400))
        return JapanDateTime(year: moved.year, month: moved.month, day: moved.day) ?? moved
    }

    /// The shipment as a carrier's page would show it: accepted at the origin, and delivered when `delivered`.
    public func shipment(_ number: TrackingNumber, delivered: Bool) -> Shipment {
        let end = JapanDateTime(start.instant.addingTimeInterval(Double(days) * 86_400))
        func event(_ code: StatusCode, _ at: JapanDateTime, _ place: String) -> TrackingEvent {
            TrackingEvent(label: code.rawValue, labelEnglish: nil, code: code, at: at, dateText: nil, place: place)
        }
        return Shipment(
            trackingNumber: number, carrier: carrier,
            status: ShipmentStatus(
                code: delivered ? .delivered : .inTransit, label: delivered ? "配達完了" : "輸送中", labelEnglish: nil,
                summary: nil, note: nil, isTerminal: delivered),
            product: product, scheduledDelivery: nil,
            events: [event(.infoReceived, start, origin)] + (delivered ? [event(.delivered, end, destination)] : []),
            deliveredAt: delivered ? end : nil)
    }
}
