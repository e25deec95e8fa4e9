import ArgumentParser
import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoStore

extension LogFormat: ExpressibleByArgument {}

/// `serve`'s settings: each option's variable, range and default (read from ``Server/Configuration``'s own).
extension Setting {
    private static let year = 31_536_000.0
    private static let server = serverDefaults
    static let host = Setting("--host", variable: "KURONEKO_HOST", default: server.http.host)
    static let port = Setting("--port", variable: "KURONEKO_PORT", range: 0...65_535, default: "\(server.http.port)")
    static let demo = Setting("--demo", variable: "KURONEKO_DEMO")
    static let maxConcurrent = Setting(
        "--max-concurrent", variable: "KURONEKO_MAX_CONCURRENT", range: 1...16,
        default: "\(server.client.maxConcurrentRequests)")
    static let serverMinInterval = Setting(
        "--min-interval", variable: "KURONEKO_MIN_INTERVAL", range: 0...60,
        default: seconds(server.client.minimumRequestInterval))
    static let cacheSize = Setting(
        "--cache-size", variable: "KURONEKO_CACHE_SIZE", range: 1...10_000_000,
        default: "\(server.shipments.cache.capacity)")
    static let ttlTerminal = Setting(
        "--ttl-terminal", variable: "KURONEKO_TTL_TERMINAL", range: 0...year,
        default: seconds(server.shipments.cache.terminalTTL))
    static let ttlActive = Setting(
        "--ttl-active", variable: "KURONEKO_TTL_ACTIVE", range: 0...year, default: seconds(server.shipments.cache.activeTTL))
    static let ttlInvalid = Setting(
        "--ttl-invalid", variable: "KURONEKO_TTL_INVALID", range: 0...year,
        default: seconds(server.shipments.cache.invalidTTL))
    static let batchWindow = Setting(
        "--batch-window-ms", variable: "KURONEKO_BATCH_WINDOW_MS", range: 0...10_000,
        default: number(Double(server.client.batchWindow.components.seconds) * 1000
            + Double(server.client.batchWindow.components.attoseconds) / 1e15))
    static let queueDeadline = Setting(
        "--queue-deadline", variable: "KURONEKO_QUEUE_DEADLINE", range: 0.1...3_600,
        default: server.client.lookupDeadline.map(seconds))
    static let queueCapacity = Setting(
        "--queue-capacity", variable: "KURONEKO_QUEUE_CAPACITY", range: 1...1_000_000,
        default: "\(server.client.queueCapacity)")
    static let breakerFailures = Setting(
        "--breaker-failures", variable: "KURONEKO_BREAKER_FAILURES", range: 1...1_000,
        default: "\(server.client.circuitBreaker.failureThreshold)")
    static let breakerCoolDown = Setting(
        "--breaker-cool-down", variable: "KURONEKO_BREAKER_COOL_DOWN", range: 0.1...3_600,
        default: seconds(server.client.circuitBreaker.coolDown))
    static let connectionsPerClient = Setting(
        "--connections-per-client", variable: "KURONEKO_CONNECTIONS_PER_CLIENT", range: 1...100_000,
        default: "\(server.http.connectionsPerAddress)")
    static let maxConnections = Setting(
        "--max-connections", variable: "KURONEKO_MAX_CONNECTIONS", range: 16...1_000_000)
    static let receiveTimeout = Setting(
        "--receive-timeout", variable: "KURONEKO_RECEIVE_TIMEOUT", range: 0...3_600,
        default: "\(server.http.receiveTimeoutSeconds)")
    static let corsOrigins = Setting("--cors-origins", variable: "KURONEKO_CORS_ORIGINS")
    static let trustedProxy = Setting("--trusted-proxy", variable: "KURONEKO_TRUSTED_PROXY")
    static let maxWatchesPerOwner = Setting(
        "--max-watches-per-owner", variable: "KURONEKO_MAX_WATCHES_PER_OWNER",
        range: 1...Double(WatchLimits.maxWatchesPerOwnerSetting), default: "\(WatchLimits.defaultWatchesPerOwner)")
    static let unregisteredGrace = Setting("--unregistered-grace", variable: "KURONEKO_UNREGISTERED_GRACE", default: "3d")
    static let forgetFinishedAfter = Setting("--forget-finished-after", variable: "KURONEKO_FORGET_FINISHED_AFTER")
    static let tlsCert = Setting("--tls-cert", variable: "KURONEKO_TLS_CERT")
    static let tlsKey = Setting("--tls-key", variable: "KURONEKO_TLS_KEY")
    static let httpRedirectPort = Setting("--http-redirect-port", variable: "KURONEKO_HTTP_REDIRECT_PORT", range: 0...65_535)
    static let publicURL = Setting("--public-url", variable: "KURONEKO_PUBLIC_URL")
    static let canary = Setting("--canary", variable: "KURONEKO_CANARY")
    static let canaryEvery = Setting(
        "--canary-every", variable: "KURONEKO_CANARY_EVERY", range: 600...604_800, default: seconds(server.canaryInterval))
    static let arrivingSoon = Setting(
        "--arriving-soon", variable: "KURONEKO_ARRIVING_SOON", range: 60...86_400,
        default: seconds(server.arrivingSoonLead))
    static let noticeRate = Setting(
        "--notice-rate", variable: "KURONEKO_NOTICE_RATE", range: 0.1...1_000, default: number(server.noticeRate))
    static let vapidSubject = Setting("--vapid-subject", variable: "KURONEKO_VAPID_SUBJECT", default: server.vapidSubject)
    static let pollSpeed = Setting(
        "--poll-speed", variable: "KURONEKO_POLL_SPEED", range: 0.001...1_000_000, default: number(server.pollSpeed))
    static let allowPrivateWebhooks = Setting("--allow-private-webhooks", variable: "KURONEKO_ALLOW_PRIVATE_WEBHOOKS")
    static let requireAPIKey = Setting("--require-api-key", variable: "KURONEKO_REQUIRE_API_KEY")
    static let noWebApp = Setting("--no-web-app", variable: "KURONEKO_NO_WEB_APP")
    static let logFormat = Setting("--log-format", variable: "KURONEKO_LOG_FORMAT", default: server.logFormat.rawValue)
    static let shutdownTimeout = Setting(
        "--shutdown-timeout", variable: "KURONEKO_SHUTDOWN_TIMEOUT", range: 0...3_600, default: seconds(server.shutdownTimeout))
}

/// Where `serve` listens, the carriers it asks and how, its cache, its connections and its database.
struct ServeOptions: ParsableArguments {
    @Option(
        help: Setting.host.help(
            "address or name to listen on: 127.0.0.1, 0.0.0.0, ::1, :: (IPv6 and IPv4), localhost", value: "ADDRESS"))
    var host: String?
    @Option(help: Setting.port.help("port, 0 for any free one", value: "PORT"), transform: Setting.port.parse) var port: Double?
    @Option(help: ClientFlags.endpointHelp) var endpoint: [String] = []
    @Option(help: ClientFlags.caFileHelp) var caFile: String?
    @Flag(help: Setting.demo.help("use a built-in simulator as every carrier")) var demo = false
    @Option(help: Setting.timeout.help("per request to Yamato", value: "SECONDS"), transform: Setting.timeout.parse) var timeout: Double?
    @Option(help: Setting.maxConcurrent.help("requests to Yamato at once", value: "N"), transform: Setting.maxConcurrent.parse) var maxConcurrent: Double?
    @Option(help: Setting.serverMinInterval.help("between the starts of requests to Yamato", value: "SECONDS"), transform: Setting.serverMinInterval.parse)
    var minInterval: Double?
    @Option(help: Setting.cacheSize.help("shipments kept", value: "N"), transform: Setting.cacheSize.parse) var cacheSize: Double?
    @Option(help: Setting.ttlTerminal.help("how long a delivered or returned parcel is cached", value: "SECONDS"), transform: Setting.ttlTerminal.parse)
    var ttlTerminal: Double?
    @Option(help: Setting.ttlActive.help("how long a parcel still moving is cached", value: "SECONDS"), transform: Setting.ttlActive.parse)
    var ttlActive: Double?
    @Option(help: Setting.ttlInvalid.help("how long an invalid number's answer is cached", value: "SECONDS"), transform: Setting.ttlInvalid.parse)
    var ttlInvalid: Double?
    @Option(help: Setting.batchWindow.help("gather lookups this long per request to Yamato", value: "MS"), transform: Setting.batchWindow.parse)
    var batchWindowMs: Double?
    @Option(
        help: Setting.queueDeadline.help(
            "longest a lookup waits for Yamato; one that would wait longer is answered 503 at once, one whose "
                + "deadline passes 504", value: "SECONDS"), transform: Setting.queueDeadline.parse)
    var queueDeadline: Double?
    @Option(help: Setting.queueCapacity.help("numbers waiting for a request to Yamato, at most", value: "N"), transform: Setting.queueCapacity.parse)
    var queueCapacity: Double?
    @Option(help: Setting.breakerFailures.help("failed requests in a row that open the circuit", value: "N"), transform: Setting.breakerFailures.parse)
    var breakerFailures: Double?
    @Option(help: Setting.breakerCoolDown.help("before a probe request is let through", value: "SECONDS"), transform: Setting.breakerCoolDown.parse)
    var breakerCoolDown: Double?
    @Option(
        help: Setting.connectionsPerClient.help(
            "open connections per address; requests on more are answered 503", value: "N"), transform: Setting.connectionsPerClient.parse)
    var connectionsPerClient: Double?
    @Option(
        help: Setting.maxConnections.help(
            "open connections from all clients (default: what the open-file limit allows, less 128)", value: "N"), transform: Setting.maxConnections.parse)
    var maxConnections: Double?
    @Option(
        help: Setting.receiveTimeout.help(
            "for a request to arrive, headers and body, however slowly it trickles in; 0 for none", value: "SECONDS"), transform: Setting.receiveTimeout.parse)
    var receiveTimeout: Double?
    @Option(
        help: Setting.corsOrigins.help(
            "origins allowed to call the API from a browser, comma-separated, or * for any (default none)",
            value: "LIST"))
    var corsOrigins: String?
    @Option(
        help: Setting.trustedProxy.help(
            "IP addresses of reverse proxies in front of the server, comma-separated: from them the client is the "
                + "address they put last in X-Forwarded-For, for the sign-in throttle (default none: the header is "
                + "ignored)", value: "ADDRESSES"))
    var trustedProxy: String?
    @Option(
        help: Setting.database.help(
            "the watch list: an SQLite file (default $XDG_DATA_HOME/kuroneko/kuroneko.sqlite; with --demo, a "
                + "temporary file removed at exit) or a postgres:// URL shared by several servers", value: "PATH"))
    var db: String?
    @Option(
        help: Setting.maxWatchesPerOwner.help(
            "the most watches one API key (or everyone, without keys) may have; adding more is refused", value: "N"), transform: Setting.maxWatchesPerOwner.parse)
    var maxWatchesPerOwner: Double?
    @Option(
        help: Setting.unregisteredGrace.help(
            "how long a number its carrier does not know yet (伝票番号未登録) counts as waiting, not a problem",
            value: "DURATION"))
    var unregisteredGrace: String?
    @Option(
        help: Setting.forgetFinishedAfter.help(
            "remove finished parcels (every owner's) last checked longer ago than this, e.g. 90d (default: keep)",
            value: "DURATION"))
    var forgetFinishedAfter: String?
    @Option(
        help: Setting.tlsCert.help(
            "serve https with this certificate chain (PEM, the server's first; TLS 1.2 and 1.3), re-read on SIGHUP "
                + "and within 10 s of the file changing", value: "FILE"))
    var tlsCert: String?
    @Option(help: Setting.tlsKey.help("the private key of --tls-cert (PEM)", value: "FILE")) var tlsKey: String?
    @Option(
        help: Setting.httpRedirectPort.help(
            "with --tls-cert, also listen for plain http on PORT (0: any free one) and redirect every request to "
                + "https under --public-url (needed with --host :: or 0.0.0.0) or the address listened on, never "
                + "the request's Host", value: "PORT"), transform: Setting.httpRedirectPort.parse)
    var httpRedirectPort: Double?
    @Option(
        help: Setting.publicURL.help(
            "where people reach the web app, e.g. https://parcels.example.jp: notifications link to the parcel "
                + "there (default: no link)", value: "URL"))
    var publicUrl: String?
}

/// `serve`'s canary and forecast lead.
struct ServeLaterOptions: ParsableArguments {
    @Option(
        help: Setting.canary.help(
            "a number you know at a carrier (e.g. a delivered parcel of your own), asked every --canary-every so a "
                + "changed page is noticed on a quiet server; comma-separated or given again, one per carrier",
            value: "CARRIER=NUMBER"))
    var canary: [String] = []
    @Option(
        help: Setting.canaryEvery.help(
            "how often each --canary number is asked (background priority)", value: "SECONDS"), transform: Setting.canaryEvery.parse)
    var canaryEvery: Double?
    @Option(
        help: Setting.arrivingSoon.help(
            "how long before a forecast window starts arriving_soon is announced", value: "SECONDS"), transform: Setting.arrivingSoon.parse)
    var arrivingSoon: Double?
}

/// How `serve` behaves: notices, pushes, polling, what it allows, its log and its stop.
struct ServeBehaviourOptions: ParsableArguments {
    @Option(
        help: Setting.noticeRate.help(
            "customer notices sent per second at most, every shop together (they need --smtp-url and --public-url)",
            value: "PER_SECOND"), transform: Setting.noticeRate.parse)
    var noticeRate: Double?
    @Option(
        help: Setting.vapidSubject.help(
            "the mailto: or https: contact Web Push services may use to reach the operator", value: "URL"))
    var vapidSubject: String?
    @Option(help: Setting.pollSpeed.help("divide every polling interval by this, for demos and tests", value: "FACTOR"), transform: Setting.pollSpeed.parse)
    var pollSpeed: Double?
    @Flag(
        help: Setting.allowPrivateWebhooks.help(
            "let webhooks go to loopback and private addresses (for a receiver on this machine or network)"))
    var allowPrivateWebhooks = false
    @Flag(help: Setting.requireAPIKey.help("ask for an API key on every /v1 route even before any key exists"))
    var requireApiKey = false
    @Flag(help: Setting.noWebApp.help("leave out the parcel dashboard at / (the API alone)")) var noWebApp = false
    @Option(
        help: Setting.logFormat.help(
            "text, or json: every line on standard error one JSON object with time, level and msg", value: "FORMAT"))
    var logFormat: LogFormat?
    @Option(
        help: Setting.shutdownTimeout.help(
            "on SIGTERM or SIGINT, how long requests in flight may still take before they are answered 503",
            value: "SECONDS"), transform: Setting.shutdownTimeout.parse)
    var shutdownTimeout: Double?
}

/// What `serve` runs with, read from its options and their variables.
struct ServeSettings {
    var configuration: Server.Configuration
    let demo: Bool
    let databasePath: String?
}

extension ServeCommand {
    /// Every setting comes from its option, else its `KURONEKO_…` variable, else the default its ``Setting``
    /// declares (read there from ``Server/Configuration``'s own).
    func settings(_ terminal: Terminal) throws(CommandFailure) -> ServeSettings {
        let read = reader(terminal)
        let given = options
        var configuration = Server.Configuration()
        var server = configuration.http
        server.host = read.text(given.host, .host) ?? server.host
        server.port = try read.integer(given.port, .port).map { UInt16($0) } ?? server.port
        server.connectionsPerAddress =
            try read.integer(given.connectionsPerClient, .connectionsPerClient) ?? server.connectionsPerAddress
        server.maxConnections = try read.integer(given.maxConnections, .maxConnections) ?? server.maxConnections
        server.receiveTimeoutSeconds =
            try read.integer(given.receiveTimeout, .receiveTimeout) ?? server.receiveTimeoutSeconds
        var client = configuration.client
        let endpoints = try read.endpoints(given.endpoint, .endpoint)
        client.endpoint = endpoints[.yamato] ?? client.endpoint
        client.requestTimeout = try read.seconds(given.timeout, .timeout) ?? client.requestTimeout
        configuration.endpoints = endpoints
        if !endpoints.isEmpty { configuration.carriers = Carrier.allCases.filter { endpoints[$0] != nil } }
        client.maxConcurrentRequests =
            try read.integer(given.maxConcurrent, .maxConcurrent) ?? client.maxConcurrentRequests
        client.minimumRequestInterval =
            try read.seconds(given.minInterval, .serverMinInterval) ?? client.minimumRequestInterval
        var service = configuration.shipments
        service.cache.capacity = try read.integer(given.cacheSize, .cacheSize) ?? service.cache.capacity
        service.cache.terminalTTL = try read.seconds(given.ttlTerminal, .ttlTerminal) ?? service.cache.terminalTTL
        service.cache.activeTTL = try read.seconds(given.ttlActive, .ttlActive) ?? service.cache.activeTTL
        service.cache.invalidTTL = try read.seconds(given.ttlInvalid, .ttlInvalid) ?? service.cache.invalidTTL
        client.batchWindow =
            try read.number(given.batchWindowMs, .batchWindow).map { .milliseconds(Int64($0)) } ?? client.batchWindow
        client.lookupDeadline = try read.seconds(given.queueDeadline, .queueDeadline) ?? client.lookupDeadline
        client.queueCapacity = try read.integer(given.queueCapacity, .queueCapacity) ?? client.queueCapacity
        client.circuitBreaker.failureThreshold =
            try read.integer(given.breakerFailures, .breakerFailures) ?? client.circuitBreaker.failureThreshold
        client.circuitBreaker.coolDown =
            try read.seconds(given.breakerCoolDown, .breakerCoolDown) ?? client.circuitBreaker.coolDown
        let demo = try read.flag(given.demo, .demo)
        let databasePath = read.text(given.db, .database)
        configuration.corsOrigins = try Self.origins(read.text(given.corsOrigins, .corsOrigins))
        configuration.trustedProxies = try Self.proxies(read.text(given.trustedProxy, .trustedProxy))
        configuration.shutdownTimeout =
            try read.seconds(behaviour.shutdownTimeout, .shutdownTimeout) ?? configuration.shutdownTimeout
        configuration.pollSpeed = try read.number(behaviour.pollSpeed, .pollSpeed) ?? configuration.pollSpeed
        configuration.noticeRate = try read.number(behaviour.noticeRate, .noticeRate) ?? configuration.noticeRate
        configuration.maxWatchesPerOwner =
            try read.integer(given.maxWatchesPerOwner, .maxWatchesPerOwner) ?? configuration.maxWatchesPerOwner
        configuration.publicURL = try read.url(given.publicUrl, .publicURL)
        if let text = read.text(given.unregisteredGrace, .unregisteredGrace), !text.isEmpty {
            configuration.unregisteredGrace = try WatchListSession.duration(
                text, option: "--unregistered-grace", command: "serve", maximum: 86_400 * 365)
        }
        if let text = read.text(given.forgetFinishedAfter, .forgetFinishedAfter), !text.isEmpty {
            configuration.forgetFinishedAfter = try WatchListSession.duration(
                text, option: "--forget-finished-after", command: "serve", maximum: 86_400 * 3_650)
        }
        let caFile = try read.certificates(given.caFile, .caFile)
        configuration.mailbox = try mailbox.settings(read, caFile: caFile)
        configuration.mailboxInterval =
            try read.seconds(mailbox.mailboxEvery, .mailboxEvery) ?? configuration.mailboxInterval
        configuration.mailboxMarkSeen = try read.flag(mailbox.mailboxMarkSeen, .mailboxMarkSeen)
        configuration.mailboxMoveTo = try mailbox.moveTo(read, settings: configuration.mailbox)
        configuration.mqtt = try mqtt.settings(read, caFile: caFile)
        configuration.homeAssistant = try mqtt.homeAssistant(read)
        configuration.canaries = try Self.canaries(read.all(later.canary, .canary))
        configuration.canaryInterval = try read.seconds(later.canaryEvery, .canaryEvery) ?? configuration.canaryInterval
        server.tls = try Self.tls(certificate: read.text(given.tlsCert, .tlsCert), key: read.text(given.tlsKey, .tlsKey))
        if let port = try read.integer(given.httpRedirectPort, .httpRedirectPort) {
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
        configuration.channelSettings = try channelSettings.settings(read)
        configuration.caFile = caFile
        configuration.smtp = try smtp.settings(read, caFile: caFile)
        configuration.arrivingSoonLead =
            try read.seconds(later.arrivingSoon, .arrivingSoon) ?? configuration.arrivingSoonLead
        configuration.vapidSubject = read.text(behaviour.vapidSubject, .vapidSubject) ?? configuration.vapidSubject
        guard configuration.vapidSubject.hasPrefix("mailto:") || configuration.vapidSubject.hasPrefix("https://") else {
            throw .usage(
                "serve: --vapid-subject \"\(configuration.vapidSubject.prefix(80))\" is not a mailto: or https: URL; "
                    + "expected e.g. mailto:ops@example.jp")
        }
        configuration.allowPrivateWebhooks = try read.flag(behaviour.allowPrivateWebhooks, .allowPrivateWebhooks)
        configuration.requireAPIKey = try read.flag(behaviour.requireApiKey, .requireAPIKey)
        configuration.webApp = try !read.flag(behaviour.noWebApp, .noWebApp)
        configuration.logFormat = try read.choice(behaviour.logFormat, .logFormat) ?? configuration.logFormat
        // A terminal's reader may hold a phone up to it; a log file or journald is not shown a drawing.
        configuration.setUpLinkQRCode = terminal.errorIsTerminal && configuration.logFormat == .text
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
        return ServeSettings(configuration: configuration, demo: demo, databasePath: databasePath)
    }
}
