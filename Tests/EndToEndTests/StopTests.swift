import Foundation
import KuronekoTestSupport
import Testing

/// How `kuroneko serve` stops: at once for new clients, with a deadline for the rest.
@Suite("kuroneko serve: stopping", .serialized, .timeLimit(.minutes(10)))
struct StopTests {
    private static func status(of answer: String) -> Int? {
        answer.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The POSTs the simulator has received, asked over a raw socket.
    private static func posts(_ simulator: ServerProcess) async throws -> Double? {
        let body = try await SocketClient(port: simulator.port).get("/admin/stats").body
        if case .number(let posts)? = try JSON(data: body)["posts"] { return posts }
        return nil
    }

    @Test("SIGTERM: new connections refused at once, queued lookups 503, a hanging one cut off at the deadline, exit 0")
    func drainWithDeadline() async throws {
        let simulator = try await ServerProcess(["simulate", "--hang-seconds", "60"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--shutdown-timeout", "2",
            "--min-interval", "60", "--timeout", "60", "--queue-deadline", "120",
        ])
        let numbers = ValidNumbers.numbers(2, from: 57_000_000_000)
        let hanging = try RawConnection(port: server.port)
        try hanging.send("GET /v1/shipments/\(numbers[0].digits) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await simulator.waitForLog("POST 1 received"))
        let queued = try RawConnection(port: server.port)
        try queued.send("GET /v1/shipments/\(numbers[1].digits) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            try await eventually {
                String(decoding: try await SocketClient(port: server.port).get("/metrics").body, as: UTF8.self)
                    .contains(#"kuroneko_upstream_queue_length{carrier="yamato",priority="interactive"} 1"#)
            })
        // A client trickling its headers is not waited for.
        let trickling = try RawConnection(port: server.port)
        try trickling.send("GET /healthz HTTP/1.1\r\nHo")

        let signalled = ContinuousClock.now
        server.send(signal: SIGTERM)
        let queuedAnswer = try await queued.request("")
        #expect(Self.status(of: queuedAnswer) == 503, "\(queuedAnswer)")
        #expect(ContinuousClock.now - signalled < .seconds(1))
        #expect(throws: (any Error).self, "the listening socket is closed") { try RawConnection(port: server.port) }
        let cutOff = try await hanging.request("")
        #expect(Self.status(of: cutOff) == 503, "\(cutOff)")
        let stopped = await server.waitForExit()
        let took = ContinuousClock.now - signalled
        #expect(stopped.status == 0)
        #expect(took >= .seconds(2) && took < .seconds(4), "stopped after \(took)")
        #expect(stopped.log.contains("requests cut off at the deadline: 1"), "\(stopped.log)")
        print("stop: SIGTERM to exit \(took); queued lookup answered 503, hanging one cut off at 2 s")
    }

    @Test("a second signal exits at once")
    func secondSignal() async throws {
        let simulator = try await ServerProcess(["simulate", "--hang-seconds", "60"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--shutdown-timeout", "30", "--timeout", "60",
            "--queue-deadline", "120",
        ])
        let hanging = try RawConnection(port: server.port)
        try hanging.send("GET /v1/shipments/327754459830 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await simulator.waitForLog("POST 1 received"))
        let signalled = ContinuousClock.now
        server.send(signal: SIGTERM)
        // The drain has begun (its line is logged) before the second signal.
        #expect(await server.waitForLog("a second signal exits now"))
        server.send(signal: SIGINT)
        let stopped = await server.waitForExit()
        #expect(stopped.status == 130)
        #expect(ContinuousClock.now - signalled < .seconds(5))
        #expect(stopped.log.contains("received again, exiting now"))
    }
}
