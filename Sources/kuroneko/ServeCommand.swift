import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoWebApp
import KuronekoSimulator
import KuronekoWatch

/// `kuroneko serve`: the REST API, until SIGINT or SIGTERM.
struct ServeCommand {
    private let server: HTTPServer.Configuration
    private let client: TrackingClient.Configuration
    private let service: ShipmentService.Configuration
    private let demo: Bool
    private let corsOrigins: [String]
    private let shutdownTimeout: Duration
    private let databasePath: String?
    private let pollSpeed: Double
    private let allowPrivateWebhooks: Bool
    private let requireAPIKey: Bool
    private let webApp: Bool
    private let environment: [String: String]
    private let logFormat: LogFormat
    /// How long a lookup waits for Yamato by default: a person or a program behind an HTTP client is waiting.
    static let defaultQueueDeadline = Duration.seconds(10)

    /// Every setting comes from its flag, else its `KURONEKO_…` environment variable, else the default.
    init(arguments: [String], environment: [String: String]) throws(CommandFailure) {
        let arguments = try ArgumentList(arguments, spec: CommandCatalog.serve, environment: environment)
        var server = HTTPServer.Configuration()
        server.host = arguments.text("--host") ?? server.host
        if let port = try arguments.number("--port", in: 0...65_535) {
            server.port = UInt16(port)
        }
        if let cap = try arguments.number(
            "--connections-per-client", in: 1...100_000)
        {
            server.connectionsPerAddress = Int(cap)
        }
        if let limit = try arguments.number(
            "--max-connections", in: 16...1_000_000)
        {
            server.maxConnections = Int(limit)
        }
        if let seconds = try arguments.number(
            "--receive-timeout", in: 0...3_600)
        {
            server.receiveTimeoutSeconds = Int(seconds)
        }
        var client = TrackingClient.Configuration()
        client.endpoint = try arguments.endpoint("--endpoint") ?? client.endpoint
        client.requestTimeout =
            try arguments.seconds("--timeout", in: 0.1...600) ?? client.requestTimeout
        if let count = try arguments.number("--max-concurrent", in: 1...16) {
            client.maxConcurrentRequests = Int(count)
        }
        client.minimumRequestInterval =
            try arguments.seconds("--min-interval", in: 0...60)
            ?? client.minimumRequestInterval
        var service = ShipmentService.Configuration()
        if let size = try arguments.number("--cache-size", in: 1...10_000_000) {
            service.cache.capacity = Int(size)
        }
        let year = 31_536_000.0
        service.cache.terminalTTL =
            try arguments.seconds("--ttl-terminal", in: 0...year)
            ?? service.cache.terminalTTL
        service.cache.activeTTL =
            try arguments.seconds("--ttl-active", in: 0...year)
            ?? service.cache.activeTTL
        service.cache.invalidTTL =
            try arguments.seconds("--ttl-invalid", in: 0...year)
            ?? service.cache.invalidTTL
        if let milliseconds = try arguments.number(
            "--batch-window-ms", in: 0...10_000)
        {
            client.batchWindow = .milliseconds(Int64(milliseconds))
        }
        client.lookupDeadline =
            try arguments.seconds("--queue-deadline", in: 0.1...3_600)
            ?? Self.defaultQueueDeadline
        if let capacity = try arguments.number(
            "--queue-capacity", in: 1...1_000_000)
        {
            client.queueCapacity = Int(capacity)
        }
        if let failures = try arguments.number(
            "--breaker-failures", in: 1...1_000)
        {
            client.circuitBreaker.failureThreshold = Int(failures)
        }
        client.circuitBreaker.coolDown =
            try arguments.seconds("--breaker-cool-down", in: 0.1...3_600)
            ?? client.circuitBreaker.coolDown
        demo = try arguments.flagOrVariable("--demo")
        corsOrigins = try Self.origins(arguments.text("--cors-origins"))
        shutdownTimeout =
            try arguments.seconds("--shutdown-timeout", in: 0...3_600)
            ?? .seconds(10)
        databasePath = arguments.text("--db")
        pollSpeed = try arguments.number("--poll-speed", in: 0.001...1_000_000) ?? 1
        allowPrivateWebhooks = try arguments.flagOrVariable("--allow-private-webhooks")
        requireAPIKey = try arguments.flagOrVariable("--require-api-key")
        webApp = try !arguments.flagOrVariable("--no-web-app")
        logFormat = try arguments.choice("--log-format").flatMap(LogFormat.init(rawValue:)) ?? .text
        self.environment = environment
        try arguments.expectNoOperands()
        self.server = server
        self.client = client
        self.service = service
    }

    /// `*`, or a comma-separated list of origins such as `https://shop.example,http://localhost:3000`.
    private static func origins(_ text: String?) throws(CommandFailure) -> [String] {
        guard let text else { return [] }
        let origins = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for origin in origins where origin != "*" {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil, url.path.isEmpty, url.query == nil
            else {
                throw .usage(
                    "serve: --cors-origins \"\(origin)\" is not an origin; expected * or scheme://host[:port], "
                        + "e.g. https://shop.example")
            }
        }
        return origins
    }

    /// Serves until SIGTERM or SIGINT. With `--log-format json`, a failure is written as a JSON line too.
    func run(on terminal: Terminal) async throws {
        let notices = ServerLog(format: logFormat, write: { [terminal] line in terminal.printError(line) })
        do {
            try await serve(notices: notices)
        } catch let failure as CommandFailure where logFormat == .json {
            notices.notice(failure.message, level: .error)
            throw CommandFailure.reported(failure.status)
        } catch let error where logFormat == .json && !(error is CommandFailure) {
            notices.notice("\(error)", level: .error)
            throw CommandFailure.reported(.lookupFailed)
        }
    }

    private func serve(notices: ServerLog) async throws {
        let clock = SystemClock()
        let metrics = Metrics()
        var client = self.client
        let transport: any HTTPTransport
        if demo {
            transport = SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock()))
            client.endpoint = URL(string: "http://simulator.invalid/cgi-bin/tneko") ?? client.endpoint
        } else {
            transport = CurlTransport()
        }
        let watchList = try WatchListSetup.open(
            path: databasePath, demo: demo, environment: environment, pollSpeed: pollSpeed,
            announce: { line in notices.notice(line) })
        defer { watchList.removeTemporaryFile() }
        let service = ShipmentService(
            client: TrackingClient(
                configuration: client, transport: transport, clock: clock,
                budget: try watchList.upstreamBudget(client, clock: clock), observer: metrics.recordUpstream),
            clock: clock, metrics: metrics, configuration: self.service, fetched: watchList.recorder(clock: clock),
            shared: watchList.sharedShipments())
        let logWriter = BufferedLogWriter(format: logFormat)
        let events = ServerLog(format: logFormat, write: { [logWriter] line in logWriter.write(line) })
        let listener = watchList.listenForOtherServers(service: service, log: { line in events.event(line) })
        defer { listener?.stop() }
        let background = watchList.start(
            service: service, clock: clock, sender: SocketWebhookSender(allowPrivate: allowPrivateWebhooks),
            log: { line in events.event(line) })
        defer { background.stop() }
        let keyRing = APIKeyRing(store: watchList.store)
        keyRing.startRefreshing()
        let application = APIApplication.make(
            service: service, metrics: metrics, httpMetrics: HTTPMetrics(), clock: clock, corsOrigins: corsOrigins,
            log: logWriter, logFormat: logFormat,
            watches: WatchRoutes(
                store: watchList.store, service: service, clock: clock, allowPrivateWebhooks: allowPrivateWebhooks),
            keys: APIKeyMiddleware(ring: keyRing, required: requireAPIKey),
            webApp: webApp ? WebApp.embedded : nil,
            moreMetrics: { background.metrics() })
        let running: HTTPServer
        do {
            running = try HTTPServer(configuration: server, application: application)
        } catch {
            throw CommandFailure.usage("serve: \(error.message)")
        }
        let url = "http://\(running.urlHost):\(running.port)"
        notices.notice("listening on \(url)", startFields(client: client, running: running, watchList: watchList),
            jsonFields: [("url", .text(url))])
        let manager = ServiceManagerNotifier(environment: environment)
        manager.notify("READY=1\nSTATUS=listening on \(url)")
        let signal = await TerminationSignals.wait()
        let started = ContinuousClock.now
        manager.notify("STOPPING=1\nSTATUS=\(signal) received, draining")
        logWriter.flush()
        notices.notice(
            "\(signal) received: refusing new connections, answering queued lookups 503, "
                + "finishing requests in flight for up to \(shutdownTimeout / .seconds(1)) s; a second signal exits now",
            jsonFields: [("signal", .text(signal))])
        Self.exitOnSecondSignal(notices: notices, flush: { logWriter.flush(timeout: .milliseconds(500)) })
        running.stopAccepting()
        await service.client.scheduler.shutDown()
        let cutOff = await running.shutdown(deadline: shutdownTimeout)
        logWriter.flush()
        notices.notice(
            "stopped after \((ContinuousClock.now - started) / .seconds(1)) s; requests cut off at the deadline: \(cutOff)",
            jsonFields: [("cut_off", .number(cutOff))])
    }

    /// The settings in force, for the start-up line.
    private func startFields(client: TrackingClient.Configuration, running: HTTPServer, watchList: WatchListSetup)
        -> [(String, LogValue)]
    {
        let seconds = { (duration: Duration) in LogValue.decimal(duration / .seconds(1)) }
        return [
            ("upstream", .text(demo ? "demo-simulator" : client.endpoint.absoluteString)),
            ("timeout_s", seconds(client.requestTimeout)), ("max_concurrent", .number(client.maxConcurrentRequests)),
            ("min_interval_s", seconds(client.minimumRequestInterval)),
            ("cache_size", .number(service.cache.capacity)), ("ttl_terminal_s", seconds(service.cache.terminalTTL)),
            ("ttl_active_s", seconds(service.cache.activeTTL)), ("ttl_invalid_s", seconds(service.cache.invalidTTL)),
            ("batch_window_ms", .decimal(client.batchWindow / .milliseconds(1))),
            ("queue_deadline_s", seconds(client.lookupDeadline ?? .zero)),
            ("queue_capacity", .number(client.queueCapacity)),
            ("breaker_failures", .number(client.circuitBreaker.failureThreshold)),
            ("breaker_cool_down_s", seconds(client.circuitBreaker.coolDown)),
            ("connections_per_client", .number(server.connectionsPerAddress)),
            ("max_connections", .number(running.connectionLimit)),
            ("receive_timeout_s", .number(server.receiveTimeoutSeconds)),
            ("cors_origins", .text(corsOrigins.isEmpty ? "none" : corsOrigins.joined(separator: ","))),
            ("shutdown_timeout_s", seconds(shutdownTimeout)), ("db", .text(watchList.location)),
            ("poll_speed", .decimal(pollSpeed)), ("allow_private_webhooks", .flag(allowPrivateWebhooks)),
            ("require_api_key", .flag(requireAPIKey)), ("web_app", .text(webApp ? "/" : "off")),
            ("log_format", .text(logFormat.rawValue)),
        ]
    }

    /// Exits at once, with 128 + the signal's number, when SIGINT or SIGTERM comes again during the drain.
    static func exitOnSecondSignal(notices: ServerLog, flush: @escaping @Sendable () -> Void) {
        Task.detached {
            let again = await TerminationSignals.wait()
            flush()
            notices.notice("\(again) received again, exiting now", level: .warning)
            exit(again == "SIGINT" ? 130 : 143)
        }
    }
}
