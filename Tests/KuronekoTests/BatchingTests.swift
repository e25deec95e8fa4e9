import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

@Suite("Batching", .timeLimit(.minutes(10)))
struct BatchingTests {
    static func numbers(_ count: Int) -> [TrackingNumber] { ValidNumbers.numbers(count) }

    @Test("the form carries number00=1 and number01… in order")
    func formBody() {
        let body = String(decoding: TrackingForm.body(for: Self.numbers(3)), as: UTF8.self)
        let numbers = Self.numbers(3).map(\.digits)
        #expect(body == "number00=1&number01=\(numbers[0])&number02=\(numbers[1])&number03=\(numbers[2])")
        let ten = String(decoding: TrackingForm.body(for: Self.numbers(10)), as: UTF8.self)
        #expect(ten.contains("&number10=\(Self.numbers(10)[9].digits)"))
    }

    @Test("the plan looks up each distinct number once, ten at a time")
    func plan() {
        let distinct = Self.numbers(12)
        let requested = distinct + [distinct[0], distinct[11], distinct[3]]
        let plan = BatchPlan(requested)
        #expect(plan.batches.map(\.count) == [10, 2])
        #expect(Array(plan.batches.joined()) == distinct)
    }

    @Test("25 numbers cost 3 POSTs of 10, 10 and 5, and come back in the caller's order")
    func twentyFive() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport.pages(clock: clock)
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .zero), transport: transport, clock: clock)
        let numbers = Self.numbers(25).shuffled(using: &SeededGeneratorBox.shared)
        let shipments = try await client.track(numbers)

        #expect(shipments.map(\.trackingNumber) == numbers)
        let sent = await transport.calls.map { FakeTrackingPage.numbers(inFormBody: $0.request.body) }
        #expect(sent.map(\.count).sorted() == [5, 10, 10])
        #expect(Set(sent.joined()) == Set(numbers))
        #expect(sent.joined().count == 25)
    }

    @Test("duplicates are looked up once and answered wherever they were asked")
    func duplicates() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport.pages(clock: clock)
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .zero), transport: transport, clock: clock)
        let distinct = Self.numbers(3)
        let asked = [distinct[2], distinct[0], distinct[2], distinct[1], distinct[0]]
        let shipments = try await client.track(asked)
        #expect(shipments.map(\.trackingNumber) == asked)
        let calls = await transport.calls
        #expect(calls.count == 1)
        #expect(FakeTrackingPage.numbers(inFormBody: calls[0].request.body) == [distinct[2], distinct[0], distinct[1]])
    }

    @Test("the request is a form POST to the configured endpoint with the tool's User-Agent")
    func requestShape() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport.pages(clock: clock)
        let endpoint = try #require(URL(string: "http://127.0.0.1:9/cgi-bin/tneko"))
        let client = TrackingClient(
            configuration: .init(endpoint: endpoint, requestTimeout: .seconds(3)), transport: transport, clock: clock)
        _ = try await client.track(Self.numbers(1))
        let request = try #require(await transport.calls.first?.request)
        #expect(request.url == endpoint)
        #expect(request.method == "POST")
        #expect(request.timeout == .seconds(3))
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["User-Agent"]?.hasPrefix("Kuroneko/\(KuronekoVersion.version) (+https://") == true)
    }
}

/// A shared deterministic shuffle source for tests that want a scrambled but repeatable order.
enum SeededGeneratorBox {
    nonisolated(unsafe) static var shared = SeededGenerator(seed: 2026)
}
