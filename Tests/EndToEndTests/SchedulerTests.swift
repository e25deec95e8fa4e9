import Foundation
import KuronekoTestSupport
import Testing

/// The upstream scheduler seen from outside: `kuroneko serve` in front of `kuroneko simulate`.
@Suite("kuroneko serve: the upstream scheduler under faults and overload", .serialized, .timeLimit(.minutes(10)))
struct SchedulerTests {
    /// Reads `read` until it satisfies `done` (at most 2,400 reads 50 ms apart: a bound that catches a hang);
    /// the last value read.
    private static func waitFor<T>(_ read: () async throws -> T, until done: (T) -> Bool) async throws -> T {
        var value = try await read()
        for _ in 0..<2_400 where !done(value) {
            try await Task.sleep(for: .milliseconds(50))
            value = try await read()
        }
        return value
    }

    private static func stats(_ simulator: ServerProcess) async throws -> JSON {
        try JSON(data: try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").body)
    }

    private static func metric(_ name: String, of server: ServerProcess) async throws -> Double? {
        let text = String(decoding: try await HTTPClient.send("GET", server.baseURL + "/metrics").body, as: UTF8.self)
        // Yamato's sample: the name alone, or with its carrier label first among others.
        let labelled =
            name.contains("{")
            ? name.replacingOccurrences(of: "{", with: "{carrier=\"yamato\",") : name + "{carrier=\"yamato\"}"
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(labelled + " ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) }
    }

    @Test(
        "the breaker counts POSTs: one failed POST of six numbers leaves /readyz 200, five open it, and the cool-down ends by itself"
    )
    func breaker() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--min-interval", "0",
            "--breaker-cool-down", "30",
        ])
        defer { server.terminate() }
        // Pages cut off count against the upstream (a page not understood does not: the carrier answered).
        _ = try await HTTPClient.send("PUT", simulator.baseURL + "/admin/faults", body: #"{"truncate_pages": true}"#)
        let six = ValidNumbers.numbers(6, from: 51_000_000_000).map(\.digits).joined(separator: ",")
        let failed = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments?numbers=\(six)")
        #expect(failed.status == 502)
        #expect(try await Self.stats(simulator)["posts"] == .number(1))
        let ready = try await HTTPClient.send("GET", server.baseURL + "/readyz")
        #expect(ready.status == 200)
        #expect(try JSON(data: ready.body)["circuit"] == .string("closed"))

        for number in ValidNumbers.numbers(4, from: 52_000_000_000) {
            #expect(try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/\(number.digits)").status == 502)
        }
        // Open for the 30 s cool-down (three requests on this machine's loopback take far less, however loaded).
        #expect(try await HTTPClient.send("GET", server.baseURL + "/readyz").status == 503)
        #expect(try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/327754459830").status == 503)
        #expect(try await Self.metric("kuroneko_upstream_circuit_state", of: server) == 2)
        #expect(try await Self.stats(simulator)["posts"] == .number(5), "nothing is sent while the circuit is open")

        // No lookup arrives; readiness comes back on its own after the cool-down, half-open (long enough that a loaded machine checks the open circuit before it ends).
        let recovered = try await Self.waitFor(
            { try await HTTPClient.send("GET", server.baseURL + "/readyz") }, until: { $0.status == 200 })
        #expect(recovered.status == 200)
        #expect(try JSON(data: recovered.body)["circuit"] == .string("half_open"))
        #expect(try await Self.stats(simulator)["posts"] == .number(5))

        // One probe POST closes it again.
        _ = try await HTTPClient.send("PUT", simulator.baseURL + "/admin/faults", body: #"{"truncate_pages": false}"#)
        #expect(try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/327754459830").status == 200)
        let closed = try await HTTPClient.send("GET", server.baseURL + "/readyz")
        #expect(try JSON(data: closed.body)["circuit"] == .string("closed"))
    }

    @Test("1,500 distinct uncached numbers at once with a 5 s deadline: everyone answered, most shed, Yamato paced")
    func overload() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--queue-deadline", "5",
            "--connections-per-client", "4000", "--max-connections", "4000",
        ])
        defer { server.terminate() }
        let targets = ValidNumbers.numbers(1_500, from: 53_000_000_000).map { "/v1/shipments/\($0.digits)" }
        let answers = await BurstClient.get(port: server.port, targets: targets)

        let statuses = Dictionary(grouping: answers, by: { $0.status ?? 0 }).mapValues(\.count)
        #expect(Set(statuses.keys).isSubset(of: [200, 503, 504]), "\(statuses)")
        #expect((statuses[200] ?? 0) >= 10, "\(statuses)")
        #expect((statuses[503] ?? 0) >= 1_000, "\(statuses)")
        for answer in answers where answer.status == 503 {
            #expect(Int(answer.retryAfter ?? "") ?? 0 >= 1)
        }
        let stats = try await Self.stats(simulator)
        if case .number(let most)? = stats["max_in_flight"] {
            #expect(most <= 2, "\(stats)")
        } else {
            Issue.record("the simulator's stats have no max_in_flight: \(stats)")
        }
        // Starts are paced as the server's own record says (its scheduler's clock; where the POSTs arrive, one
        // whose task waited on a loaded machine comes late and the next closer).
        let startGap = try await Self.metric("kuroneko_upstream_shortest_start_gap_seconds", of: server)
        #expect(startGap.map { $0 >= 1.0 } ?? false, "shortest start gap \(String(describing: startGap))")
        #expect(try await Self.metric("kuroneko_upstream_shed_total", of: server) ?? 0 >= 1_000)
    }

    @Test("a client that disconnects while its number waits for a POST: the number is never sent")
    func disconnectedClient() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--min-interval", "4",
        ])
        defer { server.terminate() }
        let numbers = ValidNumbers.numbers(3, from: 54_000_000_000)
        // The first number takes the first POST; the next POST may start 4 s later.
        #expect(try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/\(numbers[0].digits)").status == 200)
        var leaving: RawConnection? = try RawConnection(port: server.port)
        try leaving?.send("GET /v1/shipments/\(numbers[1].digits) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let queued = try await Self.waitFor(
            { try await Self.metric(#"kuroneko_upstream_queue_length{priority="interactive"}"#, of: server) },
            until: { $0 == 1 })
        #expect(queued == 1)
        leaving = nil
        let cancelled = try await Self.waitFor(
            { try await Self.metric("kuroneko_upstream_cancelled_numbers_total", of: server) }, until: { $0 == 1 })
        #expect(cancelled == 1)
        // The next POST carries only the number somebody still waits for.
        #expect(try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/\(numbers[2].digits)").status == 200)
        let stats = try await Self.stats(simulator)
        #expect(stats["posts"] == .number(2))
        #expect(stats["numbers"] == .number(2), "\(stats)")
    }
}
