import Foundation
import Kuroneko
import Testing

/// Which answers tell a parcel's recipient something: a milestone the shop chose, once reached; nothing for a
/// parcel the first answer shows finished, nor for news over a week old.
@Suite("Customer notice plan")
struct CustomerNoticePlanTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)
    static let all = Set(CustomerMilestone.allCases)

    static func shipment(_ rows: [(String, StatusCode)], hoursAgo: Double = 1, terminal: Bool = false) -> Shipment {
        let number = try! TrackingNumber(parsing: "312345678901")
        let events = rows.enumerated().map { index, row in
            TrackingEvent(
                label: row.0, labelEnglish: nil, code: row.1,
                at: JapanDateTime(now.addingTimeInterval(-hoursAgo * 3_600 - Double(rows.count - index) * 60)),
                dateText: nil, place: "羽田クロノゲートベース")
        }
        let (label, code) = rows[rows.count - 1]
        return Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: terminal),
            product: "宅急便", scheduledDelivery: nil, events: events, deliveredAt: nil)
    }

    @Test func milestonesOfTheJourney() {
        #expect(CustomerMilestone.of(Self.shipment([("荷物受付", .infoReceived)])) == .shipped)
        #expect(CustomerMilestone.of(Self.shipment([("輸送中", .inTransit)])) == .shipped)
        #expect(CustomerMilestone.of(Self.shipment([("配達中", .outForDelivery)])) == .outForDelivery)
        #expect(CustomerMilestone.of(Self.shipment([("持戻（ご不在）", .attemptFailed)])) == .missedDelivery)
        #expect(CustomerMilestone.of(Self.shipment([("配達完了", .delivered)], terminal: true)) == .delivered)
        #expect(CustomerMilestone.of(Self.shipment([("調査中", .exception)])) == .problem)
        // On the way back, a transit row is not the way here, and the delivery back is not a delivery.
        #expect(CustomerMilestone.of(Self.shipment([("返品", .returned), ("輸送中", .inTransit)])) == .problem)
        #expect(
            CustomerMilestone.of(Self.shipment([("返品", .returned), ("配達完了", .delivered)], terminal: true)) == .problem)
        #expect(CustomerMilestone.of(Self.shipment([("伝票番号未登録", .notFound)])) == nil)
        // Held at the office before any attempt (営業所止め): nothing to tell yet.
        #expect(CustomerMilestone.of(Self.shipment([("輸送中", .inTransit), ("保管中", .availableForPickup)])) == nil)
    }

    @Test func whatIsSentAndWhatIsNot() {
        let moving = Self.shipment([("荷物受付", .infoReceived), ("輸送中", .inTransit)])
        #expect(CustomerNoticePlan.decide(moving, firstAnswer: true, chosen: Self.all, now: Self.now) == .send(.shipped))
        #expect(
            CustomerNoticePlan.decide(moving, firstAnswer: false, chosen: [.delivered], now: Self.now)
                == .skip(.notChosen))
        let delivered = Self.shipment([("輸送中", .inTransit), ("配達完了", .delivered)], terminal: true)
        #expect(
            CustomerNoticePlan.decide(delivered, firstAnswer: true, chosen: Self.all, now: Self.now)
                == .skip(.finishedWhenAdded))
        #expect(CustomerNoticePlan.decide(delivered, firstAnswer: false, chosen: Self.all, now: Self.now) == .send(.delivered))
        let old = Self.shipment([("輸送中", .inTransit)], hoursAgo: 8 * 24)
        #expect(CustomerNoticePlan.decide(old, firstAnswer: false, chosen: Self.all, now: Self.now) == .skip(.stale))
        let weekOld = Self.shipment([("輸送中", .inTransit)], hoursAgo: 6 * 24)
        #expect(CustomerNoticePlan.decide(weekOld, firstAnswer: false, chosen: Self.all, now: Self.now) == .send(.shipped))
        // Already going back to the shop (or back) when first seen: nobody is told it comes back.
        let returning = Self.shipment([("輸送中", .inTransit), ("返品", .returned), ("輸送中", .inTransit)])
        #expect(
            CustomerNoticePlan.decide(returning, firstAnswer: true, chosen: Self.all, now: Self.now)
                == .skip(.returningWhenAdded))
        #expect(CustomerNoticePlan.decide(returning, firstAnswer: false, chosen: Self.all, now: Self.now) == .send(.problem))
        let back = Self.shipment([("返品", .returned), ("配達完了", .delivered)], terminal: true)
        #expect(
            CustomerNoticePlan.decide(back, firstAnswer: true, chosen: Self.all, now: Self.now) == .skip(.returningWhenAdded))
        let unknown = Self.shipment([("伝票番号未登録", .notFound)])
        #expect(CustomerNoticePlan.decide(unknown, firstAnswer: true, chosen: Self.all, now: Self.now) == .skip(.noMilestone))
    }
}
