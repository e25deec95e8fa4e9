import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoSimulator
import KuronekoStore
import KuronekoWebApp

/// `kuroneko serve`: flags and `KURONEKO_…` variables → ``Server/Configuration`` → ``Server/run(environment:until:)``,
/// until SIGINT or SIGTERM.
struct ServeCommand: Command {
    static let spec = CommandCatalog.serve
    private let configuration: Server.Configuration
    private let demo: Bool
    private let databasePath: String?
    private let environment: [String: String]
    private let terminal: Terminal

    /// Every setting comes from its flag, else its `KURONEKO_…` environment variable, else the default the
    /// catalogue declares (read there from ``Server/Configuration``'s own).
    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        var configuration = Server.Configuration()
        var server = configuration.http
        server.host = arguments.text(.host) ?? server.host
        server.port = try arguments.number(.port).map { UInt16($0) } ?? server.port
        server.connectionsPerAddress =
            try arguments.number(.connectionsPerClient).map { Int($0) }
            ?? server.connectionsPerAddress
        server.maxConnections = try arguments.number(.maxConnections).map { Int($0) } ?? server.maxConnections
        server.receiveTimeoutSeconds =
            try arguments.number(.receiveTimeout).map { Int($0) }
            ?? server.receiveTimeoutSeconds
        var client = configuration.client
        let endpoints = try arguments.endpoints(.endpoint)
        client.endpoint = endpoints[.yamato] ?? client.endpoint
        client.requestTimeout = try arguments.seconds(.timeout) ?? client.requestTimeout
        configuration.endpoints = endpoints
        if !endpoints.isEmpty { configuration.carriers = Carrier.allCases.filter { endpoints[$0] != nil } }
        client.maxConcurrentRequests =
            try arguments.number(.maxConcurrent).map { Int($0) }
            ?? client.maxConcurrentRequests
        client.minimumRequestInterval = try arguments.seconds(.minInterval) ?? client.minimumRequestInterval
        var service = configuration.shipments
        service.cache.capacity = try arguments.number(.cacheSize).map { Int($0) } ?? service.cache.capacity
        service.cache.terminalTTL = try arguments.seconds(.ttlTerminal) ?? service.cache.terminalTTL
        service.cache.activeTTL = try arguments.seconds(.ttlActive) ?? service.cache.activeTTL
        service.cache.invalidTTL = try arguments.seconds(.ttlInvalid) ?? service.cache.invalidTTL
        client.batchWindow =
            try arguments.number(.batchWindowMs).map { .milliseconds(Int64($0)) }
            ?? client.batchWindow
        client.lookupDeadline = try arguments.seconds(.queueDeadline) ?? client.lookupDeadline
        client.queueCapacity = try arguments.number(.queueCapacity).map { Int($0) } ?? client.queueCapacity
        client.circuitBreaker.failureThreshold =
            try arguments.number(.breakerFailures).map { Int($0) }
            ?? client.circuitBreaker.failureThreshold
        client.circuitBreaker.coolDown = try arguments.seconds(.breakerCoolDown) ?? client.circuitBreaker.coolDown
        demo = try arguments.flagOrVariable(.demo)
        databasePath = arguments.text(.db)
        configuration.corsOrigins = try Self.origins(arguments.text(.corsOrigins))
        configuration.trustedProxies = try Self.proxies(arguments.text(.trustedProxy))
        configuration.shutdownTimeout = try arguments.seconds(.shutdownTimeout) ?? configuration.shutdownTimeout
        configuration.pollSpeed = try arguments.number(.pollSpeed) ?? configuration.pollSpeed
        configuration.noticeRate = try arguments.number(.noticeRate) ?? configuration.noticeRate
        configuration.maxWatchesPerOwner =
            try arguments.number(.maxWatchesPerOwner).map { Int($0) } ?? configuration.maxWatchesPerOwner
        configuration.publicURL = try arguments.url(.publicUrl)
        if let text = arguments.text(.unregisteredGrace), !text.isEmpty {
            configuration.unregisteredGrace = try WatchListSession.duration(
                text, option: "--unregistered-grace", command: "serve", maximum: 86_400 * 365)
        }
        if let text = arguments.text(.forgetFinishedAfter), !text.isEmpty {
            configuration.forgetFinishedAfter = try WatchListSession.duration(
                text, option: "--forget-finished-after", command: "serve", maximum: 86_400 * 3_650)
        }
        configuration.mailbox = try MailboxOptions.settings(arguments, caFile: try arguments.certificates(.caFile))
        configuration.mailboxInterval = try arguments.seconds(.mailboxEvery) ?? configuration.mailboxInterval
        configuration.mailboxMarkSeen = try arguments.flagOrVariable(.mailboxMarkSeen)
        configuration.mailboxMoveTo = try MailboxOptions.moveTo(arguments, settings: configuration.mailbox)
        configuration.mqtt = try MQTTOptions.settings(arguments, caFile: try arguments.certificates(.caFile))
        configuration.homeAssistant = try MQTTOptions.homeAssistant(arguments)
        configuration.canaries = try Self.canaries(arguments)
        configuration.canaryInterval = try arguments.seconds(.canaryEvery) ?? configuration.canaryInterval
        server.tls = try Self.tls(arguments)
        if let port = try arguments.number(.httpRedirectPort) {
            guard server.tls != nil else {
                throw .usage("serve: --http-redirect-port redirects to https: give --tls-cert and --tls-key too")
            }
            // The redirect names one fixed origin, never the request's Host: on a wildcard address it must be told.
            let wildcard = ["0.0.0.0", "::", "[::]", ""].contains(server.host)
            if wildcard, configuration.publicURL?.scheme?.lowercased() != "https" {
                throw .usage(
                    "serve: --http-redirect-port with --host \(server.host.isEmpty ? "(all addresses)" : server.host) needs "
                        + "--public-url https://NAME[:PORT] to name where clients are sent (the request's Host is not trusted)")
            }
            configuration.httpRedirectPort = UInt16(port)
        }
        configuration.channelSettings = try ChannelSettingOptions.settings(arguments)
        configuration.caFile = try arguments.certificates(.caFile)
        configuration.smtp = try SMTPOptions.settings(arguments, caFile: configuration.caFile)
        configuration.arrivingSoonLead = try arguments.seconds(.arrivingSoon) ?? configuration.arrivingSoonLead
        configuration.vapidSubject = arguments.text(.vapidSubject) ?? configuration.vapidSubject
        guard configuration.vapidSubject.hasPrefix("mailto:") || configuration.vapidSubject.hasPrefix("https://") else {
            throw .usage(
                "serve: --vapid-subject \"\(configuration.vapidSubject.prefix(80))\" is not a mailto: or https: URL; "
                    + "expected e.g. mailto:ops@example.jp")
        }
        configuration.allowPrivateWebhooks = try arguments.flagOrVariable(.allowPrivateWebhooks)
        configuration.requireAPIKey = try arguments.flagOrVariable(.requireApiKey)
        configuration.webApp = try !arguments.flagOrVariable(.noWebApp)
        configuration.logFormat =
            try arguments.choice(.logFormat).flatMap(LogFormat.init(rawValue:)) ?? configuration.logFormat
        // A terminal's reader may hold a phone up to it; a log file or journald is not shown a drawing.
        configuration.setUpLinkQRCode = terminal.errorIsTerminal && configuration.logFormat == .text
        environment = arguments.environment
        self.terminal = terminal
        try arguments.expectNoOperands()
        if demo {
            client.endpoint = URL(string: "http://simulator.invalid/cgi-bin/tneko") ?? client.endpoint
            configuration.upstreamName = "demo-simulator"
            configuration.demo = true
            // Every carrier answers from the one simulator, at its real paths.
            let simulator = URL(string: "http://simulator.invalid") ?? client.endpoint
            configuration.endpoints = Dictionary(
                uniqueKeysWithValues: Carrier.allCases.filter { $0 != .yamato }.map { ($0, simulator) })
            configuration.carriers = Carrier.allCases
        }
        configuration.http = server
        configuration.client = client
        configuration.shipments = service
        self.configuration = configuration
    }

    /// `--canary CARRIER=NUMBER`, comma-separated or given again, at most one per carrier.
    private static func canaries(_ arguments: ArgumentList) throws(CommandFailure) -> [Carrier: TrackingNumber] {
        guard let (texts, source) = arguments.allValues(.canary) else { return [:] }
        var canaries: [Carrier: TrackingNumber] = [:]
        for item in texts.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let shown = item.prefix(60).visibleInOneLine
            guard let equals = item.firstIndex(of: "=") else {
                throw .usage("serve: \(source) \"\(shown)\" is not CARRIER=NUMBER; expected e.g. yamato=4471-0412-3454")
            }
            let carrier: Carrier
            let number: TrackingNumber
            do {
                carrier = try Carrier(named: String(item[..<equals]))
                number = try TrackingNumber(parsing: String(item[item.index(after: equals)...]))
            } catch {
                throw .usage("serve: \(source) \"\(shown)\": \(error)")
            }
            guard canaries.updateValue(number, forKey: carrier) == nil else {
                throw .usage("serve: \(source) names \(carrier) twice; give each carrier one canary")
            }
        }
        return canaries
    }

    /// `*`, or a comma-separated list of origins such as `https://shop.example,http://localhost:3000`.
    private static func proxies(_ text: String?) throws(CommandFailure) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        let addresses = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for address in addresses where ClientAddress.key(address) == nil {
            throw .usage(
                "serve: --trusted-proxy \"\(address.prefix(60))\" is not an IP address; expected addresses such as "
                    + "127.0.0.1 or ::1, comma-separated")
        }
        return addresses
    }

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
    func run() async throws {
        let format = configuration.logFormat
        // Whatever logs through swift-log's process-wide system (a library's own Logger) writes the server's lines.
        LoggingSystem.bootstrap { [terminal] _ in
            LineLogHandler(format: format, prefix: "kuroneko serve: ", fieldOrder: ServerLogging.fieldOrder) { line in
                terminal.printError(line)
            }
        }
        let notices = ServerLogging.notices(format: format) { [terminal] line in
            terminal.printError(line)
        }
        do {
            try await serve(notices: notices)
        } catch let failure as CommandFailure where configuration.logFormat == .json {
            notices.error("\(failure.message)")
            throw CommandFailure.reported(failure.status)
        } catch let error where configuration.logFormat == .json && !(error is CommandFailure) {
            notices.error("\(error)")
            throw CommandFailure.reported(.lookupFailed)
        }
    }

    private func serve(notices: Logger) async throws {
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
            demo
            ? SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock()))
            : CurlTransport(caFile: configuration.caFile)
        let logWriter = BufferedLogWriter(format: configuration.logFormat)
        let server: Server
        do {
            server = try await Server.make(
                configuration: configuration, transport: transport, clock: SystemClock(), notices: notices,
                log: logWriter, flushLog: { _ = logWriter.flush() })
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure("serve", configuration.database, error))
        }
        // Listening for signals from before the server is ready, so one sent right after READY=1 is taken.
        let signals = SignalListener()
        let reload = ReloadSignal { server.reloadCertificates() }
        defer { withExtendedLifetime(reload) {} }
        do {
            try await server.run(environment: environment) {
                let signal = await signals.next()
                Self.exitOnSecondSignal(
                    signals, notices: notices, flush: { logWriter.flush(timeout: .milliseconds(500)) })
                return signal
            }
        } catch let error as ServerStartError {
            throw CommandFailure.usage("serve: \(error.message)")
        } catch let ended as ServiceEnded {
            throw Self.failure(ended)
        }
    }

    /// A background service ended on its own: exit status 1, for the service manager to start the server again
    /// (the log has already said which service and why).
    static func failure(_ ended: ServiceEnded) -> CommandFailure {
        .lookup("serve: \(ended)")
    }

    /// Exits at once, with 128 + the signal's number, when SIGINT or SIGTERM comes again during the drain.
    static func exitOnSecondSignal(
        _ signals: SignalListener, notices: Logger, flush: @escaping @Sendable () -> Void
    ) {
        Task.detached {
            let again = await signals.next()
            flush()
            notices.warning("\(again) received again, exiting now")
            exit(again == "SIGINT" ? 130 : 143)
        }
    }

    /// `--tls-cert` and `--tls-key`, both or neither; each must be a readable file.
    static func tls(_ arguments: ArgumentList) throws(CommandFailure) -> TLSFiles? {
        let certificate = arguments.text(.tlsCert).flatMap { $0.isEmpty ? nil : $0 }
        let key = arguments.text(.tlsKey).flatMap { $0.isEmpty ? nil : $0 }
        switch (certificate, key) {
        case (nil, nil): return nil
        case (let certificate?, let key?): return TLSFiles(certificate: certificate, key: key)
        case (nil, _):
            throw .usage("serve: --tls-key (KURONEKO_TLS_KEY) needs --tls-cert (KURONEKO_TLS_CERT), the certificate file")
        case (_, nil):
            throw .usage("serve: --tls-cert (KURONEKO_TLS_CERT) needs --tls-key (KURONEKO_TLS_KEY), the key file")
        }
    }
}
