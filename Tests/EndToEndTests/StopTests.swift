import Foundation
@testable import kuroneko
import KuronekoServer
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

    @Test("SIGTERM: new connections refused, queued lookups 503 before the deadline, a hanging one cut off at it, exit 0")
    func drainWithDeadline() async throws {
        let simulator = try await ServerProcess(["simulate", "--hang-seconds", "60"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--shutdown-timeout", "10",
            "--min-interval", "60", "--timeout", "60", "--queue-deadline", "120",
        ])
        let numbers = ValidNumbers.numbers(2, from: 57_000_000_000)
        let hanging = try RawConnection(port: server.port, receiveTimeout: 120)
        try hanging.send("GET /v1/shipments/\(numbers[0].digits) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await simulator.waitForLog("POST 1 received"))
        let queued = try RawConnection(port: server.port, receiveTimeout: 120)
        try queued.send("GET /v1/shipments/\(numbers[1].digits) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            try await eventually {
                String(decoding: try await SocketClient(port: server.port).get("/metrics").body, as: UTF8.self)
                    .contains(#"kuroneko_upstream_queue_length{carrier="yamato",priority="interactive"} 1"#)
            })
        // A client trickling its headers is not waited for.
        let trickling = try RawConnection(port: server.port)
        try trickling.send("GET /healthz HTTP/1.1\r\nHo")

        server.send(signal: SIGTERM)
        let queuedAnswer = try await queued.request("")
        #expect(Self.status(of: queuedAnswer) == 503, "\(queuedAnswer)")
        // In that order: the queued lookup is answered while the hanging one still waits for the deadline.
        #expect(!hanging.hasBytesWaiting, "the hanging lookup was answered before the queued one")
        #expect(throws: (any Error).self, "the listening socket is closed") { try RawConnection(port: server.port) }
        let cutOff = try await hanging.request("")
        #expect(Self.status(of: cutOff) == 503, "\(cutOff)")
        let stopped = await server.waitForExit()
        #expect(stopped.status == 0)
        // The simulator hangs for 60 s and the lookup's own timeout is 60 s: only the drain's deadline cut it off.
        #expect(stopped.log.contains("requests cut off at the deadline: 1"), "\(stopped.log)")
    }

    @Test("a second signal exits at once")
    func secondSignal() async throws {
        let simulator = try await ServerProcess(["simulate", "--hang-seconds", "60"])
        defer { simulator.terminate() }
        let server = try await ServerProcess([
            "serve", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--shutdown-timeout", "600", "--timeout", "600",
            "--queue-deadline", "120",
        ])
        let hanging = try RawConnection(port: server.port)
        try hanging.send("GET /v1/shipments/327754459830 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await simulator.waitForLog("POST 1 received"))
        server.send(signal: SIGTERM)
        // The drain has begun (its line is logged) before the second signal.
        #expect(await server.waitForLog("a second signal exits now"))
        server.send(signal: SIGINT)
        let stopped = await server.waitForExit()
        // 130, not the drain's 0: the 600 s drain (longer than the test's time limit) was not waited for.
        #expect(stopped.status == 130)
        #expect(stopped.log.contains("received again, exiting now"))
        #expect(!stopped.log.contains("requests cut off at the deadline"), "\(stopped.log)")
    }
}

/// What `kuroneko serve` exits with when a background service ended it (the server's own tests prove the
/// service's end is said and shown; this is the status a service manager sees).
@Suite("kuroneko serve: a service that ends")
struct ServiceEndedExitTests {
    @Test("a service that ended the server is exit status 1, with one line naming the service and why")
    func exitStatus() {
        let failed = ServeCommand.failure(ServiceEnded(name: "outbox", state: .failed("disk I/O error")))
        #expect(failed.status.rawValue == 1)
        #expect(failed.message == "serve: the service outbox failed: disk I/O error; the server stopped")
        let returned = ServeCommand.failure(ServiceEnded(name: "poller", state: .returned))
        #expect(returned.status.rawValue == 1 && returned.message == "serve: the service poller returned; the server stopped")
    }
}
