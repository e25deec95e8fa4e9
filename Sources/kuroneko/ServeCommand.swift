import Foundation
import Kuroneko
import KuronekoServer

/// `kuroneko serve`: the REST API, until SIGINT or SIGTERM.
struct ServeCommand {
    private let server: HTTPServer.Configuration
    private let client: TrackingClient.Configuration
    private let service: ShipmentService.Configuration
    private let demo: Bool

    /// Every setting comes from its flag, else its `KURONEKO_…` environment variable, else the default.
    init(arguments: [String], environment: [String: String]) throws(CommandFailure) {
        var settings = Settings(arguments: ArgumentList(arguments, command: "serve"), environment: environment)
        var server = HTTPServer.Configuration()
        server.host = try settings.text("--host", "KURONEKO_HOST") ?? server.host
        server.port = UInt16(try settings.number("--port", "KURONEKO_PORT", range: 0...65_535) ?? 8080)
        server.connectionsPerAddress = Int(
            try settings.number("--connections-per-client", "KURONEKO_CONNECTIONS_PER_CLIENT", range: 1...100_000)
                ?? Double(server.connectionsPerAddress))
        var client = TrackingClient.Configuration()
        if let endpoint = try settings.text("--endpoint", "KURONEKO_ENDPOINT") {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil
            else {
                throw .usage("serve: endpoint \"\(endpoint)\" is not an http(s) URL")
            }
            client.endpoint = url
        }
        if let seconds = try settings.number("--timeout", "KURONEKO_TIMEOUT", range: 0.1...600) {
            client.requestTimeout = .milliseconds(Int64(seconds * 1000))
        }
        client.maxConcurrentRequests = Int(
            try settings.number("--max-concurrent", "KURONEKO_MAX_CONCURRENT", range: 1...16) ?? 2)
        if let seconds = try settings.number("--min-interval", "KURONEKO_MIN_INTERVAL", range: 0...60) {
            client.minimumRequestInterval = .milliseconds(Int64(seconds * 1000))
        }
        var service = ShipmentService.Configuration()
        service.cache.capacity = Int(
            try settings.number("--cache-size", "KURONEKO_CACHE_SIZE", range: 1...10_000_000) ?? 10_000)
        if let seconds = try settings.number("--ttl-terminal", "KURONEKO_TTL_TERMINAL", range: 0...31_536_000) {
            service.cache.terminalTTL = .seconds(seconds)
        }
        if let seconds = try settings.number("--ttl-active", "KURONEKO_TTL_ACTIVE", range: 0...31_536_000) {
            service.cache.activeTTL = .seconds(seconds)
        }
        if let seconds = try settings.number("--ttl-invalid", "KURONEKO_TTL_INVALID", range: 0...31_536_000) {
            service.cache.invalidTTL = .seconds(seconds)
        }
        if let milliseconds = try settings.number("--batch-window-ms", "KURONEKO_BATCH_WINDOW_MS", range: 0...10_000) {
            service.batchWindow = .milliseconds(Int64(milliseconds))
        }
        demo = try settings.flag("--demo", "KURONEKO_DEMO")
        try settings.finish()
        self.server = server
        self.client = client
        self.service = service
    }

    func run(on terminal: Terminal) async throws {
        TerminationSignals.block()
        let clock = SystemClock()
        let metrics = Metrics()
        var client = self.client
        let transport: any HTTPTransport
        if demo {
            transport = SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock()))
            client.endpoint = URL(string: "http://simulator.invalid/cgi-bin/tneko") ?? client.endpoint
        } else {
            transport = URLSessionTransport()
        }
        let service = ShipmentService(
            client: TrackingClient(configuration: client, transport: transport, clock: clock), clock: clock,
            metrics: metrics, configuration: self.service)
        let logWriter = BufferedLogWriter()
        let log = AccessLog(write: logWriter.write)
        let running: HTTPServer
        do {
            running = try HTTPServer(
                configuration: server, responder: APIResponder(service: service, metrics: metrics, log: log))
        } catch {
            throw CommandFailure.usage("serve: \(error.message)")
        }
        terminal.printError(
            "kuroneko serve: listening on http://\(server.host):\(running.port) "
                + "upstream=\(demo ? "demo-simulator" : client.endpoint.absoluteString) "
                + "timeout_s=\(client.requestTimeout / .seconds(1)) max_concurrent=\(client.maxConcurrentRequests) "
                + "min_interval_s=\(client.minimumRequestInterval / .seconds(1)) cache_size=\(self.service.cache.capacity) "
                + "ttl_terminal_s=\(self.service.cache.terminalTTL / .seconds(1)) "
                + "ttl_active_s=\(self.service.cache.activeTTL / .seconds(1)) "
                + "ttl_invalid_s=\(self.service.cache.invalidTTL / .seconds(1)) "
                + "batch_window_ms=\(self.service.batchWindow / .milliseconds(1)) "
                + "connections_per_client=\(server.connectionsPerAddress)")
        let signal = await TerminationSignals.wait()
        logWriter.flush()
        terminal.printError("kuroneko serve: \(signal) received, finishing requests in flight")
        await running.shutdown()
        logWriter.flush()
    }
}

/// Reads each setting from its flag, else its environment variable, naming whichever was wrong.
private struct Settings {
    var arguments: ArgumentList
    let environment: [String: String]

    mutating func text(_ flag: String, _ variable: String) throws(CommandFailure) -> String? {
        try arguments.option(flag) ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func number(_ flag: String, _ variable: String, range: ClosedRange<Double>) throws(CommandFailure)
        -> Double?
    {
        let fromFlag = try arguments.option(flag)
        guard let text = fromFlag ?? environment[variable].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            let source = fromFlag != nil ? flag : variable
            throw .usage(
                "serve: \(source) \"\(text)\" is not a number from \(range.lowerBound.formatted()) to "
                    + "\(range.upperBound.formatted())")
        }
        return value
    }

    mutating func flag(_ flag: String, _ variable: String) throws(CommandFailure) -> Bool {
        if arguments.flag(flag) { return true }
        guard let text = environment[variable], !text.isEmpty else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw .usage("serve: \(variable) \"\(text)\" is not a boolean; use 1 or 0")
        }
    }

    func finish() throws(CommandFailure) {
        let extra = try arguments.positionals()
        guard extra.isEmpty else {
            throw .usage("serve: unexpected argument '\(extra[0])'; see 'kuroneko serve --help'")
        }
    }
}
