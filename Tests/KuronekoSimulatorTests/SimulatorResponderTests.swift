import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoSimulator
import Testing

/// The simulator's routes, in-process, without sockets.
@Suite("Simulator responder")
struct SimulatorResponderTests {
    private let start = Date(timeIntervalSince1970: 1_793_000_000)

    private func form(_ numbers: [String]) -> HTTPRequest {
        let fields = ["number00=1"] + numbers.enumerated().map { "number0\($0.offset + 1)=\($0.element)" }
        return HTTPRequest(method: "POST", path: "/cgi-bin/tneko", body: Data(fields.joined(separator: "&").utf8))
    }

    private func put(_ path: String, _ json: String) -> HTTPRequest {
        HTTPRequest(method: "PUT", path: path, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
    }

    @Test("the form answers a page the library parses, one block per number in order")
    func formPage() async throws {
        let simulator = SimulatorResponder(clock: SimulatorClock(start: start, speed: 0))
        let numbers = ["3277-5445-9830", "1234-5678-9012", "623023866161"]
        let response = await simulator.respond(to: form(numbers))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "text/html; charset=UTF-8")
        let shipments = try TrackingPageParser().parse(response.body, now: start)
        #expect(shipments.map(\.trackingNumber.formatted) == ["3277-5445-9830", "1234-5678-9012", "6230-2386-6161"])
        #expect(shipments[1].status.code == .invalidNumber)
    }

    @Test("statistics count POSTs and numbers per POST")
    func statistics() async throws {
        let simulator = SimulatorResponder(clock: SimulatorClock(start: start, speed: 0))
        _ = await simulator.respond(to: form(["327754459830"]))
        _ = await simulator.respond(to: form(["327754459830", "623023866161"]))
        _ = await simulator.respond(to: form(["327754459830", "623023866161"]))
        let stats = await simulator.respond(to: HTTPRequest(method: "GET", path: "/admin/stats"))
        let object = try #require(try JSONSerialization.jsonObject(with: stats.body) as? [String: Any])
        #expect(object["posts"] as? Int == 3)
        #expect(object["numbers"] as? Int == 5)
        #expect(object["numbers_per_post"] as? [String: Int] == ["1": 1, "2": 2])
    }

    @Test("faults set at runtime: HTTP 500, truncated pages, a changed layout")
    func faults() async throws {
        let simulator = SimulatorResponder(clock: SimulatorClock(start: start, speed: 0))
        #expect(await simulator.respond(to: put("/admin/faults", #"{"always_fail": true}"#)).status == 200)
        #expect(await simulator.respond(to: form(["327754459830"])).status == 500)

        _ = await simulator.respond(to: put("/admin/faults", #"{"always_fail": false, "truncate_pages": true}"#))
        let truncated = await simulator.respond(to: form(["327754459830"]))
        let truncatedError = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(truncated.body, now: start)
        }
        #expect(truncatedError?.code == .truncated)

        _ = await simulator.respond(to: put("/admin/faults", #"{"truncate_pages": false, "changed_layout": true}"#))
        let changed = await simulator.respond(to: form(["327754459830"]))
        let layoutError = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(changed.body, now: start)
        }
        #expect(layoutError?.code == .unrecognizedLayout)
    }

    @Test("bad admin input is a 400 problem naming it; unknown routes and methods are 404 and 405")
    func errors() async throws {
        let simulator = SimulatorResponder(clock: SimulatorClock(start: start, speed: 0))
        let outOfRange = await simulator.respond(to: put("/admin/faults", #"{"error_rate": 1.5}"#))
        #expect(outOfRange.status == 400)
        #expect(outOfRange.header("content-type") == "application/problem+json")
        let problem = try JSONDecoder().decode(ProblemDetails.self, from: outOfRange.body)
        #expect(problem.detail == "error_rate 1.5 is out of range; expected 0 to 1")

        #expect(await simulator.respond(to: put("/admin/faults", "not json")).status == 400)
        let unknown = await simulator.respond(to: put("/admin/faults", #"{"fail": true}"#))
        #expect(unknown.status == 400)
        #expect(
            try JSONDecoder().decode(ProblemDetails.self, from: unknown.body).detail
                == "unknown key \"fail\"; the keys are latency_ms, error_rate, always_fail, hang_seconds, "
                + "truncate_pages, changed_layout")
        let unknownClock = await simulator.respond(
            to: put("/admin/clock", #"{"now": "2026-12-24T09:00:00+09:00", "rate": 2}"#))
        #expect(unknownClock.status == 400)
        #expect(
            try JSONDecoder().decode(ProblemDetails.self, from: unknownClock.body).detail.hasPrefix(
                "unknown key \"rate\""))
        #expect(await simulator.respond(to: put("/admin/clock", #"{"now": "soon"}"#)).status == 400)
        #expect(await simulator.respond(to: HTTPRequest(method: "GET", path: "/nowhere")).status == 404)
        let wrongMethod = await simulator.respond(to: HTTPRequest(method: "GET", path: "/cgi-bin/tneko"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("allow") == "POST, OPTIONS")
    }

    @Test("moving the clock moves the parcels along")
    func clock() async throws {
        let clock = SimulatorClock(start: start, speed: 0)
        let simulator = SimulatorResponder(clock: clock)
        let number = "327754459830"
        // Parcels are handed in from 36 hours before the simulator's start to 12 hours after it.
        _ = await simulator.respond(to: put("/admin/clock", #"{"now": "2026-10-25T00:00:00+09:00"}"#))
        let before = try TrackingPageParser().parse(await simulator.respond(to: form([number])).body, now: clock.now)
        #expect(before[0].status.code == .notFound)
        _ = await simulator.respond(to: put("/admin/clock", #"{"now": "2026-12-31T12:00:00+09:00"}"#))
        let later = try TrackingPageParser().parse(await simulator.respond(to: form([number])).body, now: clock.now)
        #expect(later[0].events.count >= 5)
        #expect(later[0].status.isTerminal)
    }
}
