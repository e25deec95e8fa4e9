import Foundation
@testable import Kuroneko
import KuronekoHTTP
@testable import KuronekoSimulator
import Testing

/// The simulator's missed deliveries at Sagawa (12 digits from 89: ↓配達中 ⇒保管中) and Japan Post (from 99:
/// ご不在のため持ち戻り), read back through the carriers' clients: the page names the delivering office and its
/// telephone, and the parcel's next step is kept 7 days from the attempt with that office to call.
@Suite("A missed delivery in the simulator, at Sagawa and Japan Post", .timeLimit(.minutes(5)))
struct MissedDeliveryJourneyTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)

    private static func client() -> MultiCarrierClient {
        let simulator = SimulatorResponder(
            clock: SimulatorClock(start: start.addingTimeInterval(3 * 86_400), speed: 0), faults: SimulatorFaults(),
            epoch: start)
        return CarrierDetectionTests.threeCarriers(SimulatorTransport(simulator: simulator), hedgeAfter: .seconds(3_600)) {
            configuration in
            configuration.minimumRequestInterval = .zero
            configuration.batchWindow = .zero
            configuration.retry = RetryPolicy(maxRetries: 0)
        }
    }

    @Test(
        "held after nobody was home: the delivering office's telephone, kept 7 days from the attempt",
        arguments: [
            (UInt64(89_012_345_678), Carrier.sagawa, StatusCode.availableForPickup, "城南営業所", "03-0000-1802"),
            (99_012_345_678, .japanPost, .attemptFailed, "高輪郵便局", "03-0000-9902"),
        ])
    func heldAfterAbsence(first: UInt64, carrier: Carrier, code: StatusCode, office: String, telephone: String)
        async throws
    {
        let number = try TrackingNumber(parsing: String(first) + String(first % 7))
        let shipment = try await Self.client().track(number)
        #expect(shipment.carrier == carrier)
        #expect(shipment.status.code == code)
        #expect(shipment.events.dropLast().last?.code == .outForDelivery)
        let missed = try #require(MissedDelivery(shipment))
        #expect(missed.office?.name == office && missed.office?.telephone == telephone)
        let attempt = try #require(shipment.events.last?.at)
        let kept = JapanDateTime(attempt.instant.addingTimeInterval(7 * 86_400))
        #expect(missed.keptUntil == JapanDateTime(year: kept.year, month: kept.month, day: kept.day))
        // Their other numbers are delivered, and the page names no office for them.
        let other = try TrackingNumber(parsing: String(first - 1_000_000_000) + String((first - 1_000_000_000) % 7))
        let delivered = try await Self.client().track(other)
        #expect(delivered.carrier == carrier && delivered.status.code == .delivered)
        #expect(MissedDelivery(delivered) == nil)
    }

    @Test("held on arrival, before any attempt, is no missed delivery")
    func heldBeforeAnyAttempt() throws {
        let arrived = JapanDateTime(year: 2026, month: 8, day: 20, time: .init(hour: 9, minute: 0))
        let shipment = Shipment(
            trackingNumber: try TrackingNumber(parsing: "410933720116"), carrier: .sagawa,
            status: ShipmentStatus(
                code: .availableForPickup, label: "保管中", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil,
            events: [
                TrackingEvent(label: "輸送中", labelEnglish: nil, code: .inTransit, at: arrived, dateText: nil, place: nil),
                TrackingEvent(label: "保管中", labelEnglish: nil, code: .availableForPickup, at: arrived, dateText: nil, place: nil),
            ],
            deliveredAt: nil)
        #expect(MissedDelivery(shipment) == nil)
    }
}
