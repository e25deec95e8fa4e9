import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
@testable import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

/// How the server is put together: one problem type for every refusal, unknown errors answered 500 (only
/// the store's 503), and the services stopped in reverse order of dependence.
@Suite("assembly", .timeLimit(.minutes(10)))
struct AssemblyTests {
    private struct Surprise: Error {}

    @Test("any error a route meets becomes one problem: a refusal itself, a conflict 409, the store's 503, anything else 500")
    func problems() throws {
        let bad = RouteProblem(RouteProblem.bad("no"), requestID: "r1")
        #expect(bad.status == 400 && bad.reason == "invalid_request")
        let conflict = RouteProblem(WatchStoreError.limitReached(10), requestID: "r1")
        #expect(conflict.status == 409 && conflict.reason == "watch_limit")
        let store = RouteProblem(StoreError(code: 10, message: "disk I/O error"), requestID: "r2")
        #expect(store.status == 503 && store.reason == "store_unavailable" && store.retryAfter == 1)
        #expect(store.detail.contains("request r2") && !store.detail.contains("disk"))
        let surprise = RouteProblem(Surprise(), requestID: "r3")
        #expect(surprise.status == 500 && surprise.reason == "internal_error")
        #expect(surprise.detail.contains("request r3") && !surprise.detail.contains("Surprise"))
        let cancelled = RouteProblem(CancellationError(), requestID: nil)
        #expect(cancelled.status == 503 && cancelled.reason == "busy")
        let document = try JSON(data: surprise.response.body)
        #expect(document["status"] == .number(500) && document["reason"] == .string("internal_error"))
        #expect(RouteProblem.isUnexpected(Surprise()) && !RouteProblem.isUnexpected(StoreError(code: 1, message: "")))
    }

    final class Order: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// A server of the tests' own on a manual clock, with `more` services after its own; its notices collected.
    private func server(more: [any BackgroundService], lines: Order) async throws -> Server {
        var configuration = Server.Configuration()
        configuration.carriers = [.yamato]
        configuration.http.host = "127.0.0.1"
        configuration.http.port = 0
        configuration.shutdownTimeout = .seconds(5)
        configuration.database =
            FileManager.default.temporaryDirectory.appendingPathComponent("life-\(UUID().uuidString).sqlite").path
        return try await Server.make(
            configuration: configuration, transport: ScriptedTransport(clock: ManualClock()) { _, _ in
                UpstreamResponse(status: 500, headers: [:], body: Data())
            }, clock: ManualClock(), notices: ServerLogging.notices(format: .text, write: lines.add),
            moreServices: more)
    }

    /// Runs `server` until a service ends it (no signal ever comes); what `run` threw.
    private func runUntilItEnds(_ server: Server) async -> (any Error)? {
        do {
            try await server.run(environment: [:]) {
                // No signal ever comes: the stream is never finished, and its iteration ends only when cancelled.
                let (never, continuation) = AsyncStream<Void>.makeStream()
                defer { continuation.finish() }
                for await _ in never {}
                return "SIGTERM"
            }
            return nil
        } catch {
            return error
        }
    }

    @Test("a service that throws ends the server: the log names it, /readyz answers 503 naming it, run throws (exit 1)")
    func serviceThrows() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "the disk went away" } }
        let lines = Order()
        let server = try await server(more: [NamedService("broken") { throw Broken() }], lines: lines)
        let error = await runUntilItEnds(server)
        let ended = try #require(error as? ServiceEnded, "\(String(describing: error))")
        #expect(ended.name == "broken" && ended.state == .failed("the disk went away"))
        #expect(lines.all.contains { $0.hasPrefix("kuroneko serve: service broken ended: the disk went away; the server stops") })
        #expect(lines.all.contains { $0.hasPrefix("kuroneko serve: the service broken failed: the disk went away: refusing new connections") })
        let readiness = await server.application.respond(to: HTTPRequest(method: "GET", target: "/readyz"))
        #expect(readiness.status == 503)
        #expect(String(decoding: readiness.body, as: UTF8.self).contains("the background service broken failed: the disk went away"))
        // The others were stopped, last started first, and none of them is said to have ended.
        #expect(server.serviceStates.all.filter { $0.name != "broken" }.allSatisfy { $0.state == .stopped })
    }

    @Test("a service that returns while the server runs ends it too: never silently")
    func serviceReturns() async throws {
        let lines = Order()
        let server = try await server(more: [NamedService("quitter") {}], lines: lines)
        let error = await runUntilItEnds(server)
        let ended = try #require(error as? ServiceEnded, "\(String(describing: error))")
        #expect(ended.name == "quitter" && ended.state == .returned)
        #expect(lines.all.contains { $0.hasPrefix("kuroneko serve: service quitter returned while the server ran") })
        let readiness = await server.application.respond(to: HTTPRequest(method: "GET", target: "/readyz"))
        #expect(readiness.status == 503)
        #expect(String(decoding: readiness.body, as: UTF8.self).contains("quitter returned"))
    }

    @Test("a stop that comes at once, before the service group runs, still drains and stops every service")
    func stopAtOnce() async throws {
        let lines = Order()
        let server = try await server(more: [], lines: lines)
        try await server.run(environment: [:]) { "SIGTERM" }
        #expect(lines.all.contains { $0.hasPrefix("kuroneko serve: SIGTERM received: refusing new connections") }, "\(lines.all)")
        #expect(lines.all.contains { $0.hasPrefix("kuroneko serve: stopped after") })
        #expect(server.serviceStates.all.allSatisfy { $0.state == .stopped }, "\(server.serviceStates.all)")
    }

    @Test("/readyz names every background service running")
    func readinessNamesServices() async throws {
        let lines = Order()
        let (started, didStart) = AsyncStream<Void>.makeStream()
        let server = try await server(
            more: [
                NamedService("held") {
                    didStart.yield()
                    let (never, continuation) = AsyncStream<Void>.makeStream()
                    defer { continuation.finish() }
                    for await _ in never {}
                }
            ], lines: lines)
        let (stop, stopServer) = AsyncStream<Void>.makeStream()
        let running = Task {
            try await server.run(environment: [:]) {
                for await _ in stop { break }
                return "SIGTERM"
            }
        }
        for await _ in started { break }
        let readiness = await server.application.respond(to: HTTPRequest(method: "GET", target: "/readyz"))
        let body = try JSON(data: readiness.body)
        #expect(readiness.status == 200)
        #expect(body["services"]?["held"] == .string("running"))
        #expect(body["services"]?["poller"] != nil && body["services"]?["outbox"] != nil)
        stopServer.yield()
        try await running.value
        #expect(server.serviceStates.all.allSatisfy { $0.state == .stopped }, "\(server.serviceStates.all)")
    }

    @Test("the server stopped mid-check: its services stop in reverse order of start, the check in flight ends, nothing is lost")
    func serverStopsMidWork() async throws {
        let clock = ManualClock()
        let (asked, upstreamAsked) = AsyncStream<Void>.makeStream()
        let (release, releaseUpstream) = AsyncStream<Void>.makeStream()
        let (stop, stopServer) = AsyncStream<Void>.makeStream()
        let transport = ScriptedTransport(clock: clock) { _, request in
            upstreamAsked.yield()
            // The check stays in flight until the stop has begun.
            for await _ in release { break }
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
        }
        var configuration = Server.Configuration()
        configuration.carriers = [.yamato]
        configuration.client = .init(
            minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: .zero,
            circuitBreaker: .init(failureThreshold: 3, coolDown: .seconds(30)))
        configuration.http.host = "127.0.0.1"
        configuration.http.port = 0
        configuration.shutdownTimeout = .seconds(5)
        configuration.database =
            FileManager.default.temporaryDirectory.appendingPathComponent("stop-\(UUID().uuidString).sqlite").path
        let stopped = Order()
        let server = try await Server.make(
            configuration: configuration, transport: transport, clock: clock, notices: Logger.silent,
            serviceStopped: stopped.add)
        #expect(
            server.serviceNames
                == ["poller", "outbox", "arrivals", "recorder", "page-watch", "canaries", "waiting", "morning-summary", "key-ring", "audit-log"])
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        _ = try await server.store.add(number, label: "靴", owner: .local, webhook: nil, now: clock.now)
        let running = Task {
            try await server.run(environment: [:]) {
                for await _ in stop { break }
                return "SIGTERM"
            }
        }
        // The poller is checking the watch: the server is at work.
        for await _ in asked { break }
        stopServer.yield()
        releaseUpstream.yield()
        try await running.value
        #expect(stopped.all == server.serviceNames.reversed())
        #expect(try await server.store.watch(number, owner: .local)?.label == "靴")
        #expect(await transport.calls.count == 1)
    }
}
