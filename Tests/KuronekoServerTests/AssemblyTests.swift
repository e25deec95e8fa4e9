import Foundation
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

    @Test("services stop last-started first, each waited for before the one it relies on; a failed one is said and the rest go on")
    func stopOrder() async throws {
        let running = Order()
        let stopped = Order()
        let failed = Order()
        func service(_ name: String) -> NamedService {
            NamedService(name) {
                running.add(name)
                // Works until cancelled: a stream that never yields ends only with its task.
                let (stream, continuation) = AsyncStream<Never>.makeStream()
                defer { continuation.finish() }
                for await _ in stream {}
            }
        }
        struct Broken: Error {}
        let group = ServiceGroup(
            services: [service("store-reader"), service("poller"), NamedService("broken") { throw Broken() }, service("outbox")],
            failed: { name, _ in failed.add(name) }, stopped: stopped.add)
        let task = Task { await group.run() }
        #expect(try await eventually { running.all.count == 3 && failed.all == ["broken"] })
        task.cancel()
        await task.value
        #expect(stopped.all == ["outbox", "broken", "poller", "store-reader"])
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
            configuration: configuration, transport: transport, clock: clock, notices: ServerLog(format: .text) { _ in },
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
