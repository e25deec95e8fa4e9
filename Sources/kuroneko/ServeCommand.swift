import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoSimulator
import KuronekoStore
import KuronekoWebApp

/// `kuroneko serve`: flags and `KURONEKO_…` variables → ``Server/Configuration`` → ``Server/run(environment:until:)``,
/// until SIGINT or SIGTERM.
struct ServeCommand {
    private let configuration: Server.Configuration
    private let demo: Bool
    private let databasePath: String?
    private let environment: [String: String]

    /// Every setting comes from its flag, else its `KURONEKO_…` environment variable, else the default.
    init(arguments: [String], environment: [String: String]) throws(CommandFailure) {
        let arguments = try ArgumentList(arguments, spec: CommandCatalog.serve, environment: environment)
        // Every default is the server's own (Server.Configuration); flags and variables change them.
        var configuration = Server.Configuration()
        var server = configuration.http
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
        var client = configuration.client
        client.endpoint = try arguments.endpoint("--endpoint") ?? client.endpoint
        client.requestTimeout =
            try arguments.seconds("--timeout", in: 0.1...600) ?? client.requestTimeout
        if let count = try arguments.number("--max-concurrent", in: 1...16) {
            client.maxConcurrentRequests = Int(count)
        }
        client.minimumRequestInterval =
            try arguments.seconds("--min-interval", in: 0...60)
            ?? client.minimumRequestInterval
        var service = configuration.shipments
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
            ?? client.lookupDeadline
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
        databasePath = arguments.text("--db")
        configuration.corsOrigins = try Self.origins(arguments.text("--cors-origins"))
        configuration.shutdownTimeout = try arguments.seconds("--shutdown-timeout", in: 0...3_600) ?? .seconds(10)
        configuration.pollSpeed = try arguments.number("--poll-speed", in: 0.001...1_000_000) ?? 1
        configuration.allowPrivateWebhooks = try arguments.flagOrVariable("--allow-private-webhooks")
        configuration.requireAPIKey = try arguments.flagOrVariable("--require-api-key")
        configuration.webApp = try !arguments.flagOrVariable("--no-web-app")
        configuration.logFormat = try arguments.choice("--log-format").flatMap(LogFormat.init(rawValue:)) ?? .text
        self.environment = environment
        try arguments.expectNoOperands()
        if demo {
            client.endpoint = URL(string: "http://simulator.invalid/cgi-bin/tneko") ?? client.endpoint
            configuration.upstreamName = "demo-simulator"
        }
        configuration.http = server
        configuration.client = client
        configuration.shipments = service
        self.configuration = configuration
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
        let notices = ServerLog(format: configuration.logFormat, write: { [terminal] line in terminal.printError(line) })
        do {
            try await serve(notices: notices)
        } catch let failure as CommandFailure where configuration.logFormat == .json {
            notices.notice(failure.message, level: .error)
            throw CommandFailure.reported(failure.status)
        } catch let error where configuration.logFormat == .json && !(error is CommandFailure) {
            notices.notice("\(error)", level: .error)
            throw CommandFailure.reported(.lookupFailed)
        }
    }

    private func serve(notices: ServerLog) async throws {
        var configuration = self.configuration
        // --demo without --db: a file of its own, removed at exit.
        var temporary: URL?
        if let databasePath {
            configuration.database = databasePath
        } else if demo {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kuroneko-demo-\(UUID().uuidString)")
            temporary = directory
            configuration.database = directory.appendingPathComponent("kuroneko.sqlite").path
        } else {
            configuration.database = SQLiteWatchStore.defaultPath(environment: environment)
        }
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let transport: any HTTPTransport =
            demo ? SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock())) : CurlTransport()
        let logWriter = BufferedLogWriter(format: configuration.logFormat)
        let server: Server
        do {
            server = try Server(
                configuration: configuration, transport: transport, clock: SystemClock(), notices: notices,
                log: logWriter, flushLog: { _ = logWriter.flush() })
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure("serve", configuration.database, error))
        }
        // Listening for signals from before the server is ready, so one sent right after READY=1 is taken.
        let signals = SignalListener()
        do {
            try await server.run(environment: environment) {
                let signal = await signals.next()
                Self.exitOnSecondSignal(
                    signals, notices: notices, flush: { logWriter.flush(timeout: .milliseconds(500)) })
                return signal
            }
        } catch let error as ServerStartError {
            throw CommandFailure.usage("serve: \(error.message)")
        }
    }

    /// Exits at once, with 128 + the signal's number, when SIGINT or SIGTERM comes again during the drain.
    static func exitOnSecondSignal(
        _ signals: SignalListener, notices: ServerLog, flush: @escaping @Sendable () -> Void
    ) {
        Task.detached {
            let again = await signals.next()
            flush()
            notices.notice("\(again) received again, exiting now", level: .warning)
            exit(again == "SIGINT" ? 130 : 143)
        }
    }
}
