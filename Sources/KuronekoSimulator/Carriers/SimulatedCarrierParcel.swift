import Foundation
import Kuroneko

/// A parcel of a carrier other than Yamato in the simulator: its journey follows from its number and the clock,
/// handed in between 36 hours before and 12 hours after the simulator's epoch.
public struct SimulatedCarrierParcel: Sendable, Hashable {
    public let number: TrackingNumber
    public let carrier: Carrier
    public let registeredAt: Date

    public struct Step: Sendable, Hashable {
        public let label: String
        public let code: StatusCode
        public let at: JapanDateTime
        public let place: String
        public let region: String
    }

    public init(number: TrackingNumber, carrier: Carrier, epoch: Date) {
        self.number = number
        self.carrier = carrier
        let seed = number.digits.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        registeredAt = epoch.addingTimeInterval(TimeInterval((Int(seed % 2880) - 36 * 60) * 60))
    }

    /// The steps shown at `now`, oldest first; empty before the parcel is handed in.
    public func steps(at now: Date) -> [Step] {
        let journey = SimulatedCarriers.entry(for: carrier)?.journey(for: number) ?? []
        return journey.compactMap { step in
            let at = registeredAt.addingTimeInterval(step.hours * 3600)
            guard at <= now else { return nil }
            return Step(label: step.label, code: step.code, at: JapanDateTime(at), place: step.place, region: step.region)
        }
    }

    struct Leg: Sendable {
        let label: String
        let code: StatusCode
        let hours: Double
        let place: String
        let region: String
    }

    static let sagawa = [
        Leg(label: "集荷", code: .infoReceived, hours: 0, place: "西埼玉営業所", region: ""),
        Leg(label: "輸送中", code: .inTransit, hours: 5, place: "北関東中継センター", region: ""),
        Leg(label: "輸送中", code: .inTransit, hours: 14, place: "東京中継センター", region: ""),
        Leg(label: "配達中", code: .outForDelivery, hours: 28, place: "城南営業所", region: ""),
        Leg(label: "配達完了", code: .delivered, hours: 32, place: "城南営業所", region: ""),
    ]

    /// Nobody home at the first attempt: held at the delivering office, and kept there (nobody asks again).
    static let sagawaAbsent = Array(sagawa.dropLast()) + [
        Leg(label: "保管中", code: .availableForPickup, hours: 32, place: "城南営業所", region: "")
    ]

    static let japanPostAbsent = Array(japanPost.dropLast()) + [
        Leg(label: "ご不在のため持ち戻り", code: .attemptFailed, hours: 30, place: "高輪郵便局", region: "東京都")
    ]

    static let japanPost = [
        Leg(label: "引受", code: .infoReceived, hours: 0, place: "新東京郵便局", region: "千葉県"),
        Leg(label: "通過", code: .inTransit, hours: 6, place: "東京中央郵便局", region: "東京都"),
        Leg(label: "到着", code: .inTransit, hours: 16, place: "高輪郵便局", region: "東京都"),
        Leg(label: "持ち出し中", code: .outForDelivery, hours: 26, place: "高輪郵便局", region: "東京都"),
        Leg(label: "お届け先にお届け済み", code: .delivered, hours: 30, place: "高輪郵便局", region: "東京都"),
    ]
}
