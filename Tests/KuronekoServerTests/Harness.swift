import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import KuronekoWatch
import KuronekoWebApp
import Synchronization

/// The API stack in-process: a scripted upstream, a manual clock, no sockets.
struct Harness {
    let clock: ManualClock
    let transport: ScriptedTransport
    let service: ShipmentService
    let metrics: Metrics
    let api: MiddlewareStack<APIResponder>
    /// The watch list, in a file of its own under the temporary directory.
    let store: SQLiteWatchStore
    /// The access-log lines written so far.
    let log = LogLines()

    /// - Parameter batchWindow: zero sends each lookup at once; the clock never moves by itself, so with a
    ///   window only full POSTs of ten leave.
    init(
        batchWindow: Duration = .zero, cache: ShipmentCache.Policy = .init(), corsOrigins: [String] = [],
        allowPrivateWebhooks: Bool = true, webApp: WebApp? = nil,
        answer: (@Sendable (Int, UpstreamRequest) async throws -> UpstreamResponse)? = nil
    ) {
        let clock = ManualClock()
        self.clock = clock
        let transport = answer.map { ScriptedTransport(clock: clock, answer: $0) } ?? .pages(clock: clock)
        self.transport = transport
        metrics = Metrics()
        let client = TrackingClient(
            configuration: .init(
                minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: batchWindow,
                circuitBreaker: .init(failureThreshold: 3, coolDown: .seconds(30))),
            transport: transport, clock: clock, observer: metrics.recordUpstream)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("harness-\(UUID().uuidString).sqlite")
        let store = try! SQLiteWatchStore(path: path.path)
        self.store = store
        let schedule = PollSchedule()
        service = ShipmentService(
            client: client, clock: clock, metrics: metrics, configuration: .init(cache: cache),
            fetched: { shipment, fetchedAt in
                _ = try? store.record(shipment, fetchedAt: fetchedAt) { watch, shipment in
                    schedule.nextCheck(for: shipment, watchCreatedAt: watch.createdAt, now: fetchedAt, random: 0.5)
                }
            })
        api = APIApplication.make(
            service: service, metrics: metrics, httpMetrics: HTTPMetrics(), clock: clock, corsOrigins: corsOrigins,
            log: StringLogSink { [log] line in log.append(line) },
            watches: WatchRoutes(
                store: store, service: service, clock: clock, allowPrivateWebhooks: allowPrivateWebhooks),
            keys: APIKeyMiddleware(ring: APIKeyRing(store: store, maxAge: .zero), required: false),
            webApp: webApp)
    }

    func get(_ target: String, headers: [String: String] = [:]) async -> HTTPResponse {
        await api.respond(to: HTTPRequest(method: "GET", target: target, headers: headers))
    }

    func send(_ method: String, _ target: String, json: String? = nil, headers: [String: String] = [:]) async
        -> HTTPResponse
    {
        await api.respond(
            to: HTTPRequest(method: method, target: target, headers: headers, body: Data((json ?? "").utf8)))
    }

    /// Whether the request is answered at once, on the adapter's thread.
    func answeredAtOnce(_ target: String) -> Bool {
        if case .now = api.answer(HTTPRequest(method: "GET", target: target)) { return true }
        return false
    }
}

/// Lines collected from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}
