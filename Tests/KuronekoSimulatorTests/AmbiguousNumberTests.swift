import Foundation
import KuronekoSimulator
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// A 12-digit number may be Yamato's, Sagawa's or Japan Post's: one carrier's hang or outage must not hold it
/// when another carrier knows it.
@Suite("carriers independent for ambiguous numbers", .timeLimit(.minutes(10)))
struct AmbiguousNumberTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Yamato's page hangs (until the lookup is called off) or fails; the other carriers are the simulator.
    private struct YamatoInTrouble: HTTPTransport {
        enum Trouble { case hangs, fails }
        let trouble: Trouble
        let inner = SimulatorTransport(
            simulator: SimulatorResponder(clock: SimulatorClock(start: start, speed: 0), epoch: start))
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            guard request.url.host == "yamato.test" else { return try await inner.send(request) }
            switch trouble {
            case .hangs:
                await suspendUntilCancelled()
                throw CancellationError()
            case .fails:
                return UpstreamResponse(status: 503, headers: [:], body: Data("busy".utf8))
            }
        }
    }

    private static func client(_ trouble: YamatoInTrouble.Trouble) -> MultiCarrierClient {
        CarrierDetectionTests.threeCarriers(YamatoInTrouble(trouble: trouble), hedgeAfter: .milliseconds(500)) { configuration in
            configuration.minimumRequestInterval = .zero
            configuration.batchWindow = .zero
            // Yamato's own wait is longer than the suite's time limit: an answer at all, while Yamato hangs, can
            // only come from asking another carrier beside it.
            configuration.requestTimeout = .seconds(3_600)
            configuration.retry = RetryPolicy(maxRetries: 0)
            configuration.circuitBreaker.failureThreshold = 2
        }
    }

    /// A 12-digit number the simulator files as Sagawa's (it starts with 8).
    private static let sagawa = try! TrackingNumber(parsing: "812345678900")

    @Test("with Yamato hanging, a 12-digit Sagawa number is answered by Sagawa, Yamato's hang not waited for")
    func sagawaWhileYamatoHangs() async throws {
        let client = Self.client(.hangs)
        let shipment = try await client.track(Self.sagawa)
        #expect(shipment.carrier == .sagawa)
        #expect(client.memory.carrier(of: Self.sagawa) == .sagawa)
    }

    @Test("with Yamato failing, the number goes on to Sagawa, one at a time and in a batch; a number nobody finds is Yamato's failure, not not_found")
    func failing() async throws {
        let client = Self.client(.fails)
        #expect(try await client.track(Self.sagawa).carrier == .sagawa)
        let fresh = Self.client(.fails)
        var found: [Carrier?] = []
        for await answer in fresh.answers(for: [Self.sagawa]) { found.append(try? answer.result.get().carrier) }
        #expect(found == [.sagawa])
        // 12-digit, valid, starting with 1: the simulator's Yamato would know it, and Yamato is failing.
        let yamatos = try TrackingNumber(parsing: "100000000015")
        await #expect(throws: TrackingError.self) { try await client.track(yamatos) }
        var failed: [Bool] = []
        for await answer in fresh.answers(for: [yamatos]) {
            if case .failure = answer.result { failed.append(true) } else { failed.append(false) }
        }
        #expect(failed == [true])
    }

    @Test("a candidate whose circuit is open is asked last")
    func openCircuitLast() async throws {
        let client = Self.client(.fails)
        // Failures open Yamato's circuit.
        for _ in 0..<10 where client.clients[.yamato]?.scheduler.statistics.circuit != .open {
            _ = try? await client.clients[.yamato]?.track(try TrackingNumber(parsing: "100000000015"))
        }
        #expect(client.clients[.yamato]?.scheduler.statistics.circuit == .open)
        #expect(client.route(for: Self.sagawa) == [.sagawa, .japanPost, .yamato])
    }
}
