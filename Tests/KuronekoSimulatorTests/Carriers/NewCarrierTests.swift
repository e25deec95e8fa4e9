import Foundation
@testable import Kuroneko
import KuronekoHTTP
@testable import KuronekoSimulator
import Synchronization
import Testing

/// Fukuyama and Seino, added as two folders and a registration line each, answer through the simulator like
/// the first three: found from the number (asked after the carriers with a check digit), one number by its
/// detail page, several in one request, and a changed layout refused.
@Suite("Fukuyama and Seino through the simulator", .timeLimit(.minutes(10)))
struct NewCarrierTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)

    private static func client(
        faults: SimulatorFaults = SimulatorFaults(), log: CarrierDetectionTests.RequestLog
    ) -> MultiCarrierClient {
        let simulator = SimulatorResponder(
            clock: SimulatorClock(start: start.addingTimeInterval(3 * 86_400), speed: 0), faults: faults, epoch: start)
        let transport = Logged(inner: SimulatorTransport(simulator: simulator), log: log)
        return CarrierDetectionTests.threeCarriers(transport, hedgeAfter: .seconds(3_600)) { configuration in
            configuration.minimumRequestInterval = .zero
            configuration.batchWindow = .zero
            configuration.retry = RetryPolicy(maxRetries: 0)
        }
    }

    private struct Logged: HTTPTransport {
        let inner: SimulatorTransport
        let log: CarrierDetectionTests.RequestLog
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            log.add(request)
            return try await inner.send(request)
        }
    }

    @Test("an 11-digit number failing 書留's check is Fukuyama's alone: one GET of its detail page")
    func fukuyamaOne() async throws {
        let log = CarrierDetectionTests.RequestLog()
        let client = Self.client(log: log)
        let shipment = try await client.track(try TrackingNumber(parsing: "052-8199-3650"))
        #expect(shipment.carrier == .fukuyama)
        #expect(shipment.status.code == .delivered)
        #expect(shipment.events.map(\.label) == ["受付", "発送", "到着", "持出", "配達完了"])
        #expect(shipment.offices?.count == 2)
        #expect(log.all.map(\.url.path) == ["/situation/tracking_no_hunt/05281993650"])
        #expect(log.count("jp.test") == 0)
    }

    @Test("an 11-digit number passing 書留's check is asked at Japan Post first, and stays there when found")
    func japanPostFirst() async throws {
        let log = CarrierDetectionTests.RequestLog()
        let client = Self.client(log: log)
        let shipment = try await client.track(try TrackingNumber(parsing: "312-12-38385-6"))
        #expect(shipment.carrier == .japanPost)
        #expect(log.count("fukuyama.test") == 0)
    }

    @Test("several Fukuyama numbers: the form's token fetched, then one POST of all of them")
    func fukuyamaBatch() async throws {
        let log = CarrierDetectionTests.RequestLog()
        let client = Self.client(log: log)
        let numbers = try ["05281993650", "41103160351", "41103160352"].map { try TrackingNumber(parsing: $0) }
        var answers: [Int: Shipment] = [:]
        for await answer in client.answers(for: numbers, carrier: .fukuyama) { answers[answer.index] = try answer.result.get() }
        #expect(answers.count == 3)
        #expect((0..<3).allSatisfy { answers[$0]?.carrier == .fukuyama && answers[$0]?.trackingNumber == numbers[$0] })
        #expect(answers.values.allSatisfy { $0.status.code == .delivered })
        #expect(log.all.map(\.method) == ["GET", "POST"])
        let body = String(decoding: log.all[1].body, as: UTF8.self)
        #expect(body.contains("formValiNo%5D=sim"))
    }

    @Test("a 10-digit number Sagawa does not know is asked at Seino next")
    func seinoAfterSagawa() async throws {
        let log = CarrierDetectionTests.RequestLog()
        let client = Self.client(log: log)
        let shipment = try await client.track(try TrackingNumber(parsing: "7012345678"))
        #expect(shipment.carrier == .seino)
        #expect(shipment.status.code == .delivered)
        #expect(shipment.events.map(\.label) == ["受付", "発送", "中継", "到着", "持出", "配達"])
        #expect(shipment.shipDate != nil)
        #expect(log.count("sagawa.test") == 1)
        #expect(log.count("seino.test") == 1)
        #expect(log.all.last?.url.query?.contains("GNPNO1=7012345678") == true)
    }

    @Test("a changed layout at Fukuyama or Seino is refused as a page not understood, never read as not found")
    func changedLayout() async throws {
        var faults = SimulatorFaults()
        faults.changedLayout = true
        let client = Self.client(faults: faults, log: CarrierDetectionTests.RequestLog())
        for (text, carrier) in [("05281993650", Carrier.fukuyama), ("7012345678", .seino)] {
            let error = await #expect(throws: TrackingError.self) {
                try await client.track(try TrackingNumber(parsing: text), carrier: carrier)
            }
            #expect(error?.code == .pageNotUnderstood, "\(carrier): \(String(describing: error))")
        }
    }
}
