import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import KuronekoWebApp
import Synchronization
import KuronekoCrypto

/// The API stack in-process: the same ``Server`` `kuroneko serve` runs, with a scripted upstream, a manual
/// clock and no sockets.
struct Harness {
    let clock: ManualClock
    let transport: ScriptedTransport
    let server: Server
    var service: ShipmentService { server.service }
    var metrics: Metrics { server.metrics }
    var api: MiddlewareStack<APIResponder> { server.application }
    /// The watch list, in a file of its own under the temporary directory.
    let store: SQLiteWatchStore
    /// The access-log lines written so far.
    let log = LogLines()

    /// - Parameter batchWindow: zero sends each lookup at once; the clock never moves by itself, so with a
    ///   window only full POSTs of ten leave.
    init(
        batchWindow: Duration = .zero, cache: ShipmentCache.Policy = .init(), corsOrigins: [String] = [],
        allowPrivateWebhooks: Bool = true, webApp: WebApp? = nil,
        maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner,
        answer: (@Sendable (Int, UpstreamRequest) async throws -> UpstreamResponse)? = nil,
        mailSender: (any MailSender)? = nil,
        configure: (inout Server.Configuration) -> Void = { _ in }
    ) async {
        let clock = ManualClock()
        self.clock = clock
        let transport = answer.map { ScriptedTransport(clock: clock, answer: $0) } ?? .pages(clock: clock)
        self.transport = transport
        var configuration = Server.Configuration()
        configuration.carriers = [.yamato]
        configuration.client = .init(
            minimumRequestInterval: .zero, retry: RetryPolicy(maxRetries: 0), batchWindow: batchWindow,
            circuitBreaker: .init(failureThreshold: 3, coolDown: .seconds(30)))
        configuration.shipments = .init(cache: cache)
        configuration.corsOrigins = corsOrigins
        configuration.allowPrivateWebhooks = allowPrivateWebhooks
        configuration.webApp = webApp != nil
        configuration.keyRefresh = .zero
        configuration.maxWatchesPerOwner = maxWatchesPerOwner
        configuration.database =
            FileManager.default.temporaryDirectory.appendingPathComponent("harness-\(UUID().uuidString).sqlite").path
        configure(&configuration)
        do {
            server = try await Server.make(
                configuration: configuration, transport: transport, clock: clock,
                notices: Logger.silent,
                log: StringLogSink { [log] line in log.append(line) }, mailSender: mailSender, jitter: { 0.5 })
            store = try SQLiteWatchStore(path: configuration.database)
        } catch {
            fatalError("the harness's server could not be built: \(error)")
        }
    }

    /// Makes keys created, revoked or opened in the store take effect (the server rereads them every
    /// ``Server/Configuration/keyRefresh``, never in the harness).
    func keysChanged() async {
        await server.keyRing.refresh()
    }

    /// API keys named `names` (the key of each is `kn_NAME`), in effect at once: their Authorization headers.
    func keys(_ names: String...) async throws -> [[String: String]] {
        for name in names {
            _ = try await store.createKey(
                name: name, keyHash: Secrets.sha256("kn_\(name)"), calendarHash: Secrets.sha256("cal_\(name)"), now: Date())
        }
        await keysChanged()
        return names.map { ["Authorization": "Bearer kn_\($0)"] }
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
