import Foundation
import Kuroneko
import KuronekoHTTP

/// A carrier the simulator stands in for, besides Yamato's form: which numbers are its parcels, the journey
/// they follow, the pages it serves, and how its page looks when the `changed_layout` fault is on.
protocol SimulatedCarrier: Sendable {
    var carrier: Carrier { get }
    /// Whether a number is this carrier's parcel in the simulator.
    func owns(_ number: TrackingNumber) -> Bool
    var journey: [SimulatedCarrierParcel.Leg] { get }
    /// The journey one of its parcels follows (``journey`` unless the carrier has more than one).
    func journey(for number: TrackingNumber) -> [SimulatedCarrierParcel.Leg]
    /// The offices its page names with a telephone for a parcel (none unless the carrier shows them).
    func offices(for number: TrackingNumber) -> [CarrierOffice]
    /// Which numbers it owns, in words: "10 digits starting with 7".
    var ownsInWords: String { get }
    /// Adds the carrier's pages to the simulator's routes.
    func addRoutes(to router: inout Router, context: SimulatedCarrierContext)
    /// The page in a layout the parser does not know.
    func changedLayout(_ page: Data) -> Data
}

extension SimulatedCarrier {
    func journey(for number: TrackingNumber) -> [SimulatedCarrierParcel.Leg] { journey }
    func offices(for number: TrackingNumber) -> [CarrierOffice] { [] }
}

/// What a simulated carrier's pages are made from: the clock, the epoch, and the shared counts and faults.
struct SimulatedCarrierContext: Sendable {
    let clock: SimulatorClock
    let epoch: Date
    let state: SimulatorState

    /// Counts the request, then answers its page (changed when the fault is on) in the type given.
    func answer(_ carrier: Carrier, numbers: Int, type: String, page: @Sendable () -> Data) async -> HTTPResponse {
        await state.count(carrier, numbers: numbers)
        return .content(await state.changed(page(), carrier), type: type)
    }
}

/// Whose parcel a number is in the simulator: the registered carriers are asked newest first, and a number
/// none of them owns is Yamato's. The other carriers' pages answer "not found" for it, as the real ones would.
public enum SimulatedCarriers {
    /// The registration list, oldest first: Sagawa owns 12-digit numbers starting with 8 and 10-digit ones,
    /// Japan Post 12-digit numbers starting with 9, 11 and 13 digits and international numbers; a carrier
    /// registered later claims a narrower set first.
    static let registered: [any SimulatedCarrier] = [
        SimulatedSagawa(),
        SimulatedJapanPost(),
        SimulatedFukuyama(),
        SimulatedSeino(),
    ]

    /// "Sagawa Express: …; Japan Post: …", newest first as they are asked.
    public static var ownershipInWords: String {
        registered.reversed().map { "\($0.carrier.englishName): \($0.ownsInWords)" }.joined(separator: "; ")
    }

    public static func owner(of number: TrackingNumber) -> Carrier {
        registered.reversed().first { $0.owns(number) }?.carrier ?? .yamato
    }

    static func entry(for carrier: Carrier) -> (any SimulatedCarrier)? {
        registered.first { $0.carrier == carrier }
    }

    /// The offices the page of `carrier` names for a number (with their telephones).
    static func offices(of number: TrackingNumber, at carrier: Carrier) -> [CarrierOffice] {
        entry(for: carrier)?.offices(for: number) ?? []
    }

    /// A parcel of `carrier` the simulator knows, and its steps at `now`; `nil` for another carrier's number.
    static func steps(of number: TrackingNumber?, at carrier: Carrier, now: Date, epoch: Date)
        -> [SimulatedCarrierParcel.Step]?
    {
        guard let number, owner(of: number) == carrier else { return nil }
        return SimulatedCarrierParcel(number: number, carrier: carrier, epoch: epoch).steps(at: now)
    }
}

struct SimulatedSagawa: SimulatedCarrier {
    var carrier: Carrier { .sagawa }
    var ownsInWords: String { "12 digits starting with 8 (from 89 nobody is home at the first attempt), and 10 digits" }
    var journey: [SimulatedCarrierParcel.Leg] { SimulatedCarrierParcel.sagawa }

    /// 12-digit numbers starting with 89 find nobody home: ↓配達中 ⇒保管中 at the delivering office.
    func journey(for number: TrackingNumber) -> [SimulatedCarrierParcel.Leg] {
        Self.missesDelivery(number) ? SimulatedCarrierParcel.sagawaAbsent : journey
    }

    func offices(for number: TrackingNumber) -> [CarrierOffice] {
        guard Self.missesDelivery(number) else { return [] }
        return [
            CarrierOffice(role: "集荷", name: "西埼玉営業所", telephone: "03-0000-1801"),
            CarrierOffice(role: "配達", name: "城南営業所", telephone: "03-0000-1802"),
        ]
    }

    static func missesDelivery(_ number: TrackingNumber) -> Bool {
        number.format == .twelveDigits && number.digits.hasPrefix("89")
    }

    func owns(_ number: TrackingNumber) -> Bool {
        number.format == .tenDigits || (number.format == .twelveDigits && number.digits.hasPrefix("8"))
    }

    func addRoutes(to router: inout Router, context: SimulatedCarrierContext) {}

    func changedLayout(_ page: Data) -> Data { ChangedLayout.apply(to: page, carrier: carrier) }
}

struct SimulatedJapanPost: SimulatedCarrier {
    var carrier: Carrier { .japanPost }
    var ownsInWords: String {
        "12 digits starting with 9 (from 99 nobody is home at the first attempt), 11 and 13 digits, and international numbers"
    }
    var journey: [SimulatedCarrierParcel.Leg] { SimulatedCarrierParcel.japanPost }

    /// 12-digit numbers starting with 99 find nobody home: ご不在のため持ち戻り at the delivering post office.
    func journey(for number: TrackingNumber) -> [SimulatedCarrierParcel.Leg] {
        Self.missesDelivery(number) ? SimulatedCarrierParcel.japanPostAbsent : journey
    }

    func offices(for number: TrackingNumber) -> [CarrierOffice] {
        guard Self.missesDelivery(number) else { return [] }
        return [
            CarrierOffice(role: "引受", name: "新東京郵便局", telephone: "03-0000-9901"),
            CarrierOffice(role: "配達", name: "高輪郵便局", telephone: "03-0000-9902"),
        ]
    }

    static func missesDelivery(_ number: TrackingNumber) -> Bool {
        number.format == .twelveDigits && number.digits.hasPrefix("99")
    }

    func owns(_ number: TrackingNumber) -> Bool {
        number.format != .twelveDigits && number.format != .tenDigits
            || (number.format == .twelveDigits && number.digits.hasPrefix("9"))
    }

    func addRoutes(to router: inout Router, context: SimulatedCarrierContext) {}

    func changedLayout(_ page: Data) -> Data { ChangedLayout.apply(to: page, carrier: carrier) }
}
