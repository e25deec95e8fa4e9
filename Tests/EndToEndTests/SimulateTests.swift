import Foundation
import KuronekoTestSupport
import Testing

/// `kuroneko simulate` on a loopback port, with `kuroneko track` as its client.
@Suite("kuroneko simulate", .serialized, .timeLimit(.minutes(10)))
struct SimulateTests {
    @Test("track reads the simulator's pages; stats count the POSTs; SIGTERM exits 0")
    func trackAgainstSimulator() async throws {
        let simulator = try await ServerProcess(["simulate", "--start", "2026-11-29T12:00:00+09:00", "--speed", "0"])
        let numbers = ["3277-5445-9830", "6230-2386-6161", "4434-9617-1020"]
        let outcome = try await KuronekoBinary.run(
            ["track", "--json", "--endpoint", simulator.baseURL + "/cgi-bin/tneko"] + numbers)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let shipments = try JSON(data: Data(outcome.standardOutput.utf8))
        #expect(shipments.elements.count == 3)

        let (status, body) = try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats")
        #expect(status == 200)
        let stats = try JSON(data: body)
        #expect(stats["posts"] == .number(1))
        #expect(stats["numbers_per_post"] == .object(["3": .number(1)]))

        let stopped = await simulator.stop()
        #expect(stopped.status == 0)
        #expect(stopped.log.contains("SIGTERM received"))
    }

    @Test(
        "each fault gives the client its documented error, and the simulator stays up",
        arguments: [
            (#"{"always_fail": true}"#, "answered HTTP 500 (after 3 attempts)"),
            (#"{"truncate_pages": true}"#, "the page is truncated"),
            (#"{"changed_layout": true}"#, "unrecognised page layout"),
            (#"{"hang_seconds": 6}"#, "did not answer within"),
        ])
    func faults(setting: String, message: String) async throws {
        // Generous timeouts, so that a loaded machine is not mistaken for a hanging simulator.
        let timeout = setting.contains("hang") ? "1.5" : "10"
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let (status, _) = try await HTTPClient.send("PUT", simulator.baseURL + "/admin/faults", body: setting)
        #expect(status == 200)
        let outcome = try await KuronekoBinary.run(
            ["track", "--timeout", timeout, "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "3277-5445-9830"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)")
        #expect(outcome.standardError.split(separator: "\n").count == 1)
        let (after, _) = try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats")
        #expect(after == 200)
    }

    @Test("over-limit requests get 413 and 431, and the server stays up")
    func limits() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let tooLarge = try await HTTPClient.send(
            "POST", simulator.baseURL + "/cgi-bin/tneko", body: String(repeating: "a", count: 70_000))
        #expect(tooLarge.status == 413)
        let bigHeader = try await HTTPClient.send(
            "GET", simulator.baseURL + "/admin/stats", headers: ["X-Big": String(repeating: "x", count: 40_000)])
        #expect(bigHeader.status == 431)
        #expect(try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").status == 200)
    }
}
