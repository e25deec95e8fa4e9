import Foundation
@testable import Kuroneko
import KuronekoHTTP
import KuronekoSimulator
import Synchronization
import Testing

/// Numbers of every carrier looked up without naming the carrier, against the simulator serving all three
/// at their real paths: each found where it is, remembered, asked nowhere else once known.
@Suite("carrier from the number", .timeLimit(.minutes(10)))
struct CarrierDetectionTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)

    private struct Counting: HTTPTransport {
        let inner: SimulatorTransport
        let log: RequestLog
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            log.add(request)
            return try await inner.send(request)
        }
    }

    final class RequestLog: Sendable {
        private let requests = Mutex<[UpstreamRequest]>([])
        func add(_ request: UpstreamRequest) { requests.withLock { $0.append(request) } }
        var all: [UpstreamRequest] { requests.withLock { $0 } }
        func count(_ host: String) -> Int { all.filter { $0.url.host == host }.count }
    }

    private static func client(clockStart: Date = start, log: RequestLog) -> MultiCarrierClient {
        let simulator = SimulatorResponder(clock: SimulatorClock(start: clockStart, speed: 0), epoch: start)
        let transport = Counting(inner: SimulatorTransport(simulator: simulator), log: log)
        // Each carrier in turn, as routing says: no hedge, however slow a loaded machine makes an answer.
        return threeCarriers(transport, hedgeAfter: .seconds(3_600)) { configuration in
            configuration.minimumRequestInterval = .zero
            configuration.batchWindow = .zero
        }
    }

    /// A client of every carrier at `yamato.test`, `sagawa.test`, `jp.test` and `ID.test` for the others, through
    /// `transport`.
    static func threeCarriers(
        _ transport: any HTTPTransport, hedgeAfter: Duration = .seconds(3),
        _ adjust: (inout TrackingClient.Configuration) -> Void
    ) -> MultiCarrierClient {
        let endpoints: [Carrier: String] = [
            .yamato: "http://yamato.test/cgi-bin/tneko", .sagawa: "http://sagawa.test", .japanPost: "http://jp.test",
        ]
        return MultiCarrierClient(
            clients: Carrier.allCases.map { carrier in
                var configuration = TrackingClient.Configuration.defaults(for: carrier)
                configuration.endpoint = URL(string: endpoints[carrier] ?? "http://\(carrier.rawValue).test")!
                adjust(&configuration)
                return TrackingClient(configuration: configuration, transport: transport)
            }, hedgeAfter: hedgeAfter)
    }

    private static func number(_ text: String) throws -> TrackingNumber { try TrackingNumber(parsing: text) }

    /// A valid 12-digit number with the given first eleven digits.
    private static func twelve(_ first: UInt64) throws -> TrackingNumber {
        try number(String(format: "%011llu", first) + String(first % 7))
    }

    @Test("a 12-digit number is found at each carrier in turn, and remembered there")
    func twelveDigitsAtEachCarrier() async throws {
        let log = RequestLog()
        let client = Self.client(clockStart: Self.start.addingTimeInterval(3 * 86_400), log: log)
        let yamato = try Self.twelve(32_775_445_983)
        let sagawa = try Self.twelve(81_234_567_890)
        let japanPost = try Self.twelve(91_234_567_890)
        let shipments = try await [yamato, sagawa, japanPost].asyncMap { try await client.track($0) }
        #expect(shipments.map(\.carrier) == [.yamato, .sagawa, .japanPost])
        #expect(shipments.map(\.status.code) == [.delivered, .delivered, .delivered])
        #expect(shipments.allSatisfy { $0.carriersAsked == nil })
        #expect(log.count("yamato.test") == 3)
        #expect(log.count("sagawa.test") == 2)
        #expect(log.count("jp.test") == 1)
        #expect(client.memory.carrier(of: sagawa) == .sagawa)
        // Known now: asked at its carrier alone.
        _ = try await client.track(japanPost)
        #expect(log.count("yamato.test") == 3)
        #expect(log.count("jp.test") == 2)
    }

    @Test("other forms go straight to their one carrier; an explicit carrier wins")
    func formsAndExplicitCarrier() async throws {
        let log = RequestLog()
        let client = Self.client(clockStart: Self.start.addingTimeInterval(3 * 86_400), log: log)
        let international = try await client.track(Self.number("EN418273650JP"))
        #expect(international.carrier == .japanPost)
        #expect(international.product == "EMS")
        let tenDigits = try await client.track(Self.number("1234567890"))
        #expect(tenDigits.carrier == .sagawa)
        #expect(log.count("yamato.test") == 0)
        let explicit = try await client.track(Self.twelve(32_775_445_983), carrier: .japanPost)
        #expect(explicit.carrier == .japanPost)
        #expect(explicit.status.code == .notFound)
        #expect(log.count("yamato.test") == 0)
    }

    @Test("a number nobody knows is not_found, naming every carrier asked")
    func nobodyKnowsIt() async throws {
        let log = RequestLog()
        // Before any parcel is handed in: every carrier answers "not found".
        let client = Self.client(clockStart: Self.start.addingTimeInterval(-3 * 86_400), log: log)
        let shipment = try await client.track(Self.twelve(81_234_567_890))
        #expect(shipment.status.code == .notFound)
        #expect(shipment.carrier == .yamato)
        #expect(shipment.carriersAsked == [.yamato, .sagawa, .japanPost])
        let json = String(decoding: try JSONEncoder().encode(shipment), as: UTF8.self)
        #expect(json.contains("\"carriers_asked\":[\"yamato\",\"sagawa\",\"japanpost\"]"))
    }

    @Test("many mixed numbers: each carrier gets its own batches, every number answered once in its place")
    func mixedBatch() async throws {
        let log = RequestLog()
        let client = Self.client(clockStart: Self.start.addingTimeInterval(3 * 86_400), log: log)
        var numbers: [TrackingNumber] = []
        for index in 0..<20 { numbers.append(try Self.twelve(30_000_000_000 + UInt64(index) * 7_919)) }
        for index in 0..<20 { numbers.append(try Self.twelve(80_000_000_000 + UInt64(index) * 7_919)) }
        for index in 0..<5 { numbers.append(try Self.twelve(90_000_000_000 + UInt64(index) * 7_919)) }
        numbers.append(numbers[0])
        var answers: [Int: Shipment] = [:]
        for await answer in client.answers(for: numbers) { answers[answer.index] = try answer.result.get() }
        #expect(answers.count == numbers.count)
        #expect((0..<20).allSatisfy { answers[$0]?.carrier == .yamato })
        #expect((20..<40).allSatisfy { answers[$0]?.carrier == .sagawa })
        #expect((40..<45).allSatisfy { answers[$0]?.carrier == .japanPost })
        // Yamato: 45 distinct numbers in POSTs of ten; Sagawa: the 25 Yamato does not know, in three form POSTs
        // (and one GET of the form's state); Japan Post: the 5 Sagawa does not know either, searched together
        // (in one or two batches, as they arrive) and each one's history read once on its detail page.
        #expect(log.count("yamato.test") == 5)
        #expect(log.count("sagawa.test") == 4)
        let japanPost = log.all.filter { $0.url.host == "jp.test" }
        #expect(japanPost.filter { $0.url.path.hasSuffix("/direct") }.count == 5)
        #expect((1...2).contains(japanPost.filter { $0.url.path == "/services/srv/search" }.count))
    }
}

/// Each carrier has its own scheduler: Yamato hanging or failing neither slows nor opens anyone else's.
@Suite("carriers apart", .timeLimit(.minutes(10)))
struct CarrierIndependenceTests {
    /// Yamato never answers (until cancelled) or answers 500; the others are the simulator.
    private struct BrokenYamato: HTTPTransport {
        let inner: SimulatorTransport
        let hang: Bool
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            guard request.url.host == "yamato.test" else { return try await inner.send(request) }
            if hang { try await CarrierIndependenceTests.untilCancelled() }
            return UpstreamResponse(status: 500, headers: [:], body: Data())
        }
    }

    /// Never answers: returns (throwing) only when the task is cancelled, as a stuck upstream would.
    private static func untilCancelled() async throws {
        // The continuation is kept alive, so the stream ends only by the task's cancellation.
        let (stream, continuation) = AsyncStream<Never>.makeStream()
        defer { continuation.finish() }
        for await _ in stream {}
        throw CancellationError()
    }

    private static func client(hang: Bool) -> MultiCarrierClient {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let simulator = SimulatorResponder(
            clock: SimulatorClock(start: start.addingTimeInterval(3 * 86_400), speed: 0), epoch: start)
        let transport = BrokenYamato(inner: SimulatorTransport(simulator: simulator), hang: hang)
        return CarrierDetectionTests.threeCarriers(transport) { configuration in
            configuration.retry = RetryPolicy(maxRetries: 0)
            configuration.circuitBreaker.failureThreshold = 2
        }
    }

    @Test("a Yamato that hangs leaves Sagawa's and Japan Post's lookups unhindered")
    func hangingYamato() async throws {
        let client = Self.client(hang: true)
        let stuck = Task { try await client.track(try TrackingNumber(parsing: "3277-5445-9830")) }
        defer { stuck.cancel() }
        // Yamato's request is under way (and held) before the others are asked.
        await client.clients[.yamato]?.scheduler.waitForStatistics { $0.inFlight == 1 }
        let sagawa = try await client.track(try TrackingNumber(parsing: "1234567890"))
        let japanPost = try await client.track(try TrackingNumber(parsing: "EN418273650JP"))
        #expect(sagawa.carrier == .sagawa)
        #expect(japanPost.carrier == .japanPost)
    }

    @Test("Yamato's open circuit is Yamato's alone")
    func ownBreaker() async throws {
        let client = Self.client(hang: false)
        for first in [32_775_445_983, 32_775_445_984] as [UInt64] {
            let number = try TrackingNumber(parsing: String(first) + String(first % 7))
            await #expect(throws: TrackingError.self) { try await client.track(number) }
        }
        #expect(client.clients[.yamato]?.scheduler.statistics.circuit == .open)
        #expect(client.clients[.sagawa]?.scheduler.statistics.circuit == .closed)
        let sagawa = try await client.track(try TrackingNumber(parsing: "1234567890"))
        #expect(sagawa.status.code != .unknown)
    }
}

/// Sagawa's form state: fetched once, reused, and fetched again when the site refuses it.
@Suite("Sagawa's form state", .timeLimit(.minutes(10)))
struct SagawaFormStateTests {
    /// Passes requests to the simulator, spoiling the state of the POSTs it is told to (as a site that has
    /// forgotten the state would see it).
    private struct Spoiling: HTTPTransport {
        let inner: SimulatorTransport
        let log: CarrierDetectionTests.RequestLog
        let spoilPost: Int
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            var request = request
            let posts = log.all.filter { $0.method == "POST" }.count
            if request.method == "POST", posts + 1 == spoilPost {
                request.body = Data(
                    String(decoding: request.body, as: UTF8.self)
                        .replacingOccurrences(of: "jsf_tree_64=H4s", with: "jsf_tree_64=STALE").utf8)
            }
            log.add(request)
            return try await inner.send(request)
        }
    }

    @Test("the state is fetched once and reused; a refused state is renewed and the POST sent again")
    func renewedWhenRefused() async throws {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let simulator = SimulatorResponder(
            clock: SimulatorClock(start: start.addingTimeInterval(3 * 86_400), speed: 0), epoch: start)
        let log = CarrierDetectionTests.RequestLog()
        let transport = Spoiling(inner: SimulatorTransport(simulator: simulator), log: log, spoilPost: 2)
        var configuration = TrackingClient.Configuration.defaults(for: .sagawa)
        configuration.endpoint = URL(string: "http://sagawa.test")!
        configuration.minimumRequestInterval = .zero
        let client = TrackingClient(configuration: configuration, transport: transport)
        let numbers = try ["812345678900", "1234567890", "2345678901"].map { try TrackingNumber(parsing: $0) }
        let first = try await client.track(numbers)
        #expect(first.map(\.carrier) == [.sagawa, .sagawa, .sagawa])
        #expect(log.all.map(\.method) == ["GET", "POST"])
        // The second POST's state is refused: one GET of a fresh form, and the POST again.
        let second = try await client.track(numbers)
        #expect(second.map(\.status.code) == first.map(\.status.code))
        #expect(log.all.map(\.method) == ["GET", "POST", "POST", "GET", "POST"])
        // The state of the last answer is kept: the third asks with it, without a GET.
        _ = try await client.track(numbers)
        #expect(log.all.map(\.method) == ["GET", "POST", "POST", "GET", "POST", "POST"])
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
