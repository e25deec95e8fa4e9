import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// A program's own `Shipment`: with the package's namespace named `KuronekoVersion`, `Kuroneko.Shipment`
/// still names the library's type (a type named `Kuroneko` would shadow the module and break this).
private struct Shipment {
    let mine = true
}

/// The library as a newcomer uses it: per-number answers as they arrive, Codable numbers, readable codes,
/// module-qualified names, and the original app's model.
@Suite("Library for people", .timeLimit(.minutes(10)))
struct LibraryForPeopleTests {
    @Test("module-qualified names work beside a program's own type of the same name")
    func moduleQualification() throws {
        let number = try Kuroneko.TrackingNumber(parsing: "3277-5445-9830")
        let status = Kuroneko.ShipmentStatus(
            code: .delivered, label: "配達完了", labelEnglish: "Delivered", summary: nil, note: nil, isTerminal: true)
        let theirs = Kuroneko.Shipment(
            trackingNumber: number, status: status, product: nil, scheduledDelivery: nil, events: [],
            deliveredAt: nil)
        let mine = Shipment()
        #expect(theirs.trackingNumber == number && mine.mine)
        #expect(!KuronekoVersion.version.isEmpty)
    }

    @Test("a tracking number is Codable as its twelve digits; decoding checks it like parsing does")
    func codableNumber() throws {
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let encoded = try JSONEncoder().encode([number])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["327754459830"]"#)
        #expect(try JSONDecoder().decode([TrackingNumber].self, from: encoded) == [number])
        #expect(try JSONDecoder().decode([TrackingNumber].self, from: Data(#"["３２７７－５４４５－９８３０"]"#.utf8)) == [number])
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([TrackingNumber].self, from: Data(#"["1234-5678-9015"]"#.utf8))
        }
        guard case .dataCorrupted(let context)? = error else {
            return #expect(Bool(false), "\(String(describing: error))")
        }
        #expect(context.debugDescription == "\"1234-5678-9015\" check digit is 5, expected 3")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([TrackingNumber].self, from: Data("[327754459830]".utf8))
        }
    }

    @Test("a status code prints as its wire form")
    func statusDescription() {
        #expect("\(StatusCode.inTransit)" == "in_transit")
        #expect(StatusCode.allCases.allSatisfy { $0.description == $0.rawValue })
    }

    @Test("answers(for:): a failed POST gives each of its numbers a typed error; the other POSTs still answer")
    func partialAnswers() async throws {
        let clock = ManualClock()
        let numbers = ValidNumbers.numbers(25)
        let poisoned = numbers[12]
        let transport = ScriptedTransport(clock: clock) { _, request in
            let asked = FakeTrackingPage.numbers(inFormBody: request.body)
            guard !asked.contains(poisoned) else {
                return UpstreamResponse(status: 500, headers: [:], body: Data("broken".utf8))
            }
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(for: asked))
        }
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: .zero),
            transport: transport, clock: clock)
        var answers: [TrackingAnswer] = []
        for await answer in client.answers(for: numbers + [numbers[0]]) { answers.append(answer) }

        #expect(answers.count == 26)
        #expect(Set(answers.map(\.index)) == Set(0..<26))
        for answer in answers {
            #expect(answer.number == (answer.index == 25 ? numbers[0] : numbers[answer.index]))
            switch answer.result {
            case .success(let shipment):
                #expect(!(10..<20).contains(answer.index))
                #expect(shipment.trackingNumber == answer.number)
            case .failure(let error):
                #expect((10..<20).contains(answer.index), "only the POST holding the poisoned number fails")
                #expect(error.code == .httpStatus && error.httpStatus == 500)
            }
        }
        #expect(await transport.calls.count == 3)
        // The all-or-nothing form throws that same typed error.
        let error = await #expect(throws: TrackingError.self) { try await client.track(numbers) }
        #expect(error?.code == .httpStatus)
    }

    @Test("answers(for:) hands each POST's answers over as it comes, before later POSTs are sent")
    func answersArriveAsPostsEnd() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport.pages(clock: clock)
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .seconds(1), batchWindow: .zero), transport: transport,
            clock: clock)
        var iterator = client.answers(for: ValidNumbers.numbers(30)).makeAsyncIterator()
        var first: [Int] = []
        for _ in 0..<10 { if let answer = await iterator.next() { first.append(answer.index) } }
        #expect(Set(first) == Set(0..<10))
        // The second POST may not start before a second has passed on the manual clock: it has not.
        #expect(await transport.calls.count == 1)
        await clock.waitForSleeper(until: .seconds(1))
        clock.advance(by: .seconds(1))
        for _ in 0..<10 { _ = await iterator.next() }
        #expect(await transport.calls.count == 2)
    }

    @Test("ending the iteration calls off every lookup not yet sent")
    func earlyEndCancels() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport.pages(clock: clock)
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .seconds(1), batchWindow: .zero), transport: transport,
            clock: clock)
        do {
            var iterator = client.answers(for: ValidNumbers.numbers(50)).makeAsyncIterator()
            _ = await iterator.next()
        }
        await client.scheduler.waitForStatistics { $0.cancelledNumbers == 40 }
        clock.advance(by: .seconds(10))
        #expect(await transport.calls.count == 1)
        #expect(client.scheduler.statistics.queued.values.reduce(0, +) == 0)
    }

    @Test("every fixture page in the original app's model: one entry per parcel, dated events field by field")
    func tnekoModelFromFixtures() throws {
        for page in Fixtures.currentCases {
            let shipments = try TrackingPageParser().parse(try page.html, now: page.now)
            let model = TnekoModel(shipments)
            let expected = page.shipments.elements
            #expect(model.deriveryList.count == expected.count, "\(page.name)")
            for (delivery, shipment) in zip(model.deriveryList, expected) {
                guard case .string(let digits)? = shipment["tracking_number"] else { continue }
                #expect(delivery.deliveryID == Int(digits), "\(page.name)")
                let code = shipment["status"]?["code"]
                let dated = shipment["events"]?.elements.filter { $0["at"] != .null } ?? []
                let wanted =
                    code == .string("not_found") || code == .string("invalid_number")
                    ? [] : dated.map(Self.tnekoStatus)
                #expect(delivery.statusList == wanted, "\(page.name) \(digits)")
            }
        }
        #expect(TnekoModel([]).deriveryList.isEmpty)
        let encoded = String(decoding: try JSONEncoder.kuroneko().encode(TnekoModel([])), as: UTF8.self)
        #expect(encoded == #"{"deriveryList":[]}"#)
    }

    /// The expected event, from expected.json, in the model's terms: `MM/DD`, `HH:MM`.
    private static func tnekoStatus(_ event: JSON) -> TnekoModel.Status {
        guard case .string(let at)? = event["at"], case .string(let label)? = event["label"] else {
            return TnekoModel.Status(status: "?", date: "?", time: nil, shopName: "?")
        }
        let characters = Array(at)
        let date = String(characters[5..<7]) + "/" + String(characters[8..<10])
        let time = String(characters[11..<16])
        let place: String = if case .string(let place)? = event["place"] { place } else { "" }
        return TnekoModel.Status(status: label, date: date, time: time, shopName: place)
    }
}
