import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import KuronekoWebApp
import Logging
import ServiceLifecycle
import Synchronization
import KuronekoCrypto

/// The server, assembled in one place from a ``Configuration``: the watch list, the upstream budget, the
/// shipment service, the API with its middleware, the key ring, the poller, the webhook deliverer and, on a
/// shared database, the stream of shipments other servers record. `kuroneko serve` is flags →
/// ``Configuration`` → ``run(environment:until:)``; the in-process tests build the same server with a scripted
/// transport and a manual clock and call ``application``.
public final class Server: Sendable {
    public struct Configuration: Sendable {
        public var http = HTTPServer.Configuration()
        /// With TLS (`http.tls`), a plain-http port that only redirects to https (`--http-redirect-port`).
        public var httpRedirectPort: UInt16?
        public var client = TrackingClient.Configuration()
        /// Where each carrier's site is (`--endpoint CARRIER=ORIGIN`; Yamato's is `client.endpoint`); a
        /// carrier not named here keeps its real site.
        public var endpoints: [Carrier: URL] = [:]
        /// The carriers asked: every registered one unless `--endpoint` names only some.
        public var carriers: [Carrier] = Carrier.allCases

        /// Each carrier's client settings: Yamato's are ``client``; the others take its timeout, retries,
        /// breaker, queue, deadline, batch window and user agent, with their own site and politeness.
        public var carrierClients: [TrackingClient.Configuration] {
            carriers.map { carrier in
                guard carrier != .yamato else { return client }
                var settings = TrackingClient.Configuration.defaults(for: carrier)
                settings.endpoint = endpoints[carrier] ?? settings.endpoint
                settings.requestTimeout = client.requestTimeout
                settings.retry = client.retry
                settings.circuitBreaker = client.circuitBreaker
                settings.queueCapacity = client.queueCapacity
                settings.lookupDeadline = client.lookupDeadline
                settings.batchWindow = client.batchWindow
                settings.userAgent = client.userAgent
                return settings
            }
        }
        public var shipments = ShipmentService.Configuration()
        /// The watch list: an SQLite file's path or a `postgres://` URL.
        public var database = ""
        /// The most watches one owner may have.
        public var maxWatchesPerOwner = WatchLimits.defaultWatchesPerOwner
        /// Origins allowed to call the API from a browser (`*` for any); empty: no CORS headers.
        public var corsOrigins: [String] = []
        /// Divides every polling interval (demos and tests).
        public var pollSpeed = 1.0
        public var allowPrivateWebhooks = false
        public var requireAPIKey = false
        public var webApp = true
        public var logFormat: LogFormat = .text
        /// Whether the set-up link is drawn as a QR code too (its log is a terminal's, in text), so a phone opens it
        /// by its camera.
        public var setUpLinkQRCode = false
        /// How long requests in flight may take after the stop signal.
        public var shutdownTimeout: Duration = .seconds(10)
        /// How often the key ring rereads the keys; zero rereads them for every request.
        public var keyRefresh: Duration = .seconds(2)
        /// Where the web app is reached from outside (`--public-url`): messages link to the parcel there.
        public var publicURL: URL?
        /// Reverse proxies in front of the server (`--trusted-proxy`), by IP address: from them the client is the
        /// address they put last in `X-Forwarded-For` (for the sign-in throttle and its fair turns); from anyone
        /// else that header is ignored.
        public var trustedProxies: [String] = []
        /// How long a number its carrier does not know yet is waiting before it is a problem (`--unregistered-grace`).
        public var unregisteredGrace: Duration = .seconds(WatchLimits.unregisteredGrace)
        /// Finished watches last checked longer ago than this are removed, every owner's (`--forget-finished-after`);
        /// `nil`: kept until someone removes them.
        public var forgetFinishedAfter: Duration?
        /// Whether the server answers from its built-in simulator (`--demo`): the web app then offers numbers to try.
        public var demo = false
        /// The channel kinds this server offers: every kind of the project, or more (the tests' kinds).
        public var channelKinds = ChannelKindRegistry.standard
        /// The operator's settings for channel kinds, by kind and name (`--channel-setting KIND.NAME=VALUE`;
        /// `--line-origin` is `line.origin`).
        public var channelSettings: [String: [String: String]] = [:]
        /// The contact push services may use (`--vapid-subject`): a `mailto:` or `https:` URL.
        public var vapidSubject = "mailto:kuroneko@localhost"
        /// How long before a forecast window starts `arriving_soon` is announced (`--arriving-soon`).
        public var arrivingSoonLead: Duration = .seconds(1_800)
        /// A PEM file of the certificate authorities to trust for https (`--ca-file`): upstreams, webhooks,
        /// channels and the SMTP server; `nil` for the system's.
        public var caFile: String?
        /// The SMTP server e-mail channels are sent through (`--smtp-url`, `--smtp-from`); `nil`: no e-mail.
        public var smtp: SMTPSettings?
        /// Customer notices sent per second at most, across every shop on this server (`--notice-rate`).
        public var noticeRate = CustomerNoticeDeliverer.defaultRate
        /// A number per carrier the operator knows (`--canary CARRIER=NUMBER`), asked every ``canaryInterval`` so
        /// that a changed page is noticed even when nobody looks anything up.
        public var canaries: [Carrier: TrackingNumber] = [:]
        /// How often each canary is asked (`--canary-every`).
        public var canaryInterval: Duration = .seconds(3 * 3_600)
        /// When a carrier's pages are judged changed, and read again.
        var pageHealth = PageHealth.Policy()
        /// What a test may set of ``pageHealth``: the refused numbers within ten minutes that mean a change.
        public var pageChangeNumbers: Int {
            get { pageHealth.distinctNumbers }
            set { pageHealth.distinctNumbers = newValue }
        }
        /// A mailbox read for shipping mails (`--mailbox`), its parcels watched for the local owner.
        public var mailbox: MailboxSettings?
        /// How often the mailbox is read (`--mailbox-every`).
        public var mailboxInterval: Duration = .seconds(300)
        /// Whether the mail read is marked \Seen (`--mailbox-mark-seen`); otherwise its flag is left as it was.
        public var mailboxMarkSeen = false
        /// Where each shipping mail is moved once its parcels are watched (`--mailbox-move-to`); `nil`: left.
        public var mailboxMoveTo: String?
        /// An MQTT broker through which Home Assistant is shown the list (`--mqtt`), and what it is shown.
        public var mqtt: MQTTSettings?
        public var homeAssistant = HomeAssistantSettings()
        /// What the start-up line names as the upstream; the endpoint when `nil`.
        public var upstreamName: String?

        /// The defaults of `kuroneko serve`: a lookup waits at most 10 s for Yamato (a person or a program
        /// behind an HTTP client is waiting).
        public init() {
            client.lookupDeadline = .seconds(10)
        }
    }

    public let configuration: Configuration
    public let store: any ListStore
    public let service: ShipmentService
    public let metrics: Metrics
    /// The API as it is served, middleware and all.
    public let application: MiddlewareStack<APIResponder>
    private let background: [any BackgroundService]
    /// What each background service is doing (shown by `/readyz`).
    public let serviceStates: ServiceStates
    /// The background services' names, in the order they start (and the reverse of the order they stop).
    var serviceNames: [String] { background.map(\.name) }
    let notices: Logger
    let flushLog: @Sendable () -> Void
    /// Store calls of background work that failed, logged and counted.
    public let failures: StoreFailures
    /// The API keys in force (reread every ``Configuration/keyRefresh``).
    public let keyRing: APIKeyRing
    /// Each carrier's pages, judged changed or not; the refused ones kept.
    public let pageWatch: PageWatch
    /// The mailbox read for shipping mails, when there is one.
    public let mailboxReader: MailboxReader?
    /// The bytes of large request bodies held at once (`http.bodyBudgetBytes`), shown in `/metrics`.
    public let bodyBudget: BodyBudget
    private let serviceStopped: @Sendable (String) -> Void
    /// The server's clock (the set-up link's expiry is on it, as its acceptance is).
    private let clock: any TrackingClock

    /// What the server reads before it is assembled: the watch list, opened (migrated), and the VAPID key pair
    /// kept in it.
    public struct Resources: Sendable {
        public let store: any ListStore
        /// The server's Web Push identity: made once, kept in the database, the same for every server on it.
        public let vapid: VAPID?
        /// The key that signs customer notices' stop links: made once, kept in the database.
        public var noticeKey = ""
    }

    /// Opens the database (saying what its migrations did to `notices`) and reads or makes the VAPID key.
    /// - Throws: the database's error when it cannot be opened (``NewerSchemaError`` among them).
    public static func open(_ configuration: Configuration, notices: Logger) async throws -> Resources {
        let store = try DatabaseLocation.open(
            configuration.database, maxWatchesPerOwner: configuration.maxWatchesPerOwner,
            unregisteredGrace: configuration.unregisteredGrace / .seconds(1), log: notices)
        let secret = try await store.setting(
            "vapid_private_key", otherwise: Base64URL.encode(try P256KeyPair.generate().privateKey))
        let vapid = try Base64URL.decode(secret).map { try P256KeyPair(privateKey: $0) }.map {
            VAPID(keys: $0, subject: configuration.vapidSubject)
        }
        var resources = Resources(store: store, vapid: vapid)
        resources.noticeKey = try await store.setting("notice_stop_key", otherwise: Secrets.random(bytes: 32))
        return resources
    }

    /// Opens what the server needs (``open(_:notices:)``), assembles it, and reads the API keys once, so the
    /// first request meets the keys in force: what `kuroneko serve` and the tests run.
    public static func make(
        configuration: Configuration, transport: any HTTPTransport, clock: any TrackingClock,
        notices: Logger, log: (any LogSink)? = nil, flushLog: @escaping @Sendable () -> Void = {},
        webhookSender: (any WebhookSender)? = nil,
        channelSender: (any ChannelSender)? = nil,
        mailSender: (any MailSender)? = nil,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        serviceStopped: @escaping @Sendable (String) -> Void = { _ in },
        moreServices: [any BackgroundService] = []
    ) async throws -> Server {
        let server = try Server(
            configuration: configuration, resources: try await open(configuration, notices: notices),
            transport: transport, clock: clock, notices: notices, log: log, flushLog: flushLog,
            webhookSender: webhookSender, channelSender: channelSender, mailSender: mailSender, jitter: jitter,
            serviceStopped: serviceStopped, moreServices: moreServices)
        await server.keyRing.refresh()
        return server
    }

    /// Assembles the server from its configuration and what ``open(_:notices:)`` read: no I/O here (the
    /// services start in ``run(environment:until:)``).
    /// - Parameters:
    ///   - transport: how Yamato (or the simulator) is reached.
    ///   - notices: where the operator's lines go (migrations, start-up, the drain).
    ///   - log: where the access log and the watch list's event lines go; `nil` logs neither. `flushLog`
    ///     writes out what it holds (before and after the drain).
    ///   - webhookSender: the channel webhooks go out on; by default a socket sender honouring
    ///     ``Configuration/allowPrivateWebhooks``.
    ///   - jitter: the random share that spreads each watch's next check.
    ///   - serviceStopped: told each background service's name as it stops, at shutdown (last started first).
    ///   - moreServices: background services of the embedding app's (or a test's), run after the server's own
    ///     under the same supervision.
    /// - Throws: a carrier's client settings that cannot be used.
    public init(
        configuration: Configuration, resources: Resources, transport: any HTTPTransport, clock: any TrackingClock,
        notices: Logger, log: (any LogSink)? = nil, flushLog: @escaping @Sendable () -> Void = {},
        webhookSender: (any WebhookSender)? = nil,
        channelSender: (any ChannelSender)? = nil,
        mailSender: (any MailSender)? = nil,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        serviceStopped: @escaping @Sendable (String) -> Void = { _ in },
        moreServices: [any BackgroundService] = []
    ) throws {
        self.configuration = configuration
        self.serviceStopped = serviceStopped
        self.notices = notices
        let store = resources.store
        self.store = store
        self.clock = clock
        let shared = store.shared
        let metrics = Metrics()
        self.metrics = metrics
        let schedule = PollSchedule(speed: configuration.pollSpeed)
        // Every fresh answer, whoever asked, is recorded for the watches of its number; a change found wakes
        // the outbox deliverer, so its webhooks and announcements go out at once.
        let outboxDoorbell = Doorbell()
        let failures = StoreFailures(log: notices)
        self.failures = failures
        let pageWatch = PageWatch(
            store: store, clock: clock, canaries: configuration.canaries, policy: configuration.pageHealth,
            failures: failures, log: notices, announced: { outboxDoorbell.ring() })
        self.pageWatch = pageWatch
        let recorder = AnswerRecorder(
            store: store, failures: failures,
            nextCheck: { watch, shipment, fetchedAt in
                schedule.nextCheck(for: shipment, watchCreatedAt: watch.createdAt, now: fetchedAt, random: jitter())
            },
            changed: { outboxDoorbell.ring() })
        let record: @Sendable (Shipment, Date, Data) async -> Void = { shipment, fetchedAt, served in
            await recorder.record(shipment, served: served, fetchedAt: fetchedAt)
        }
        // On a shared database, what another server fetched is found there.
        var fetchedElsewhere: (@Sendable (TrackingNumber) async -> (Shipment, Date)?)?
        if shared != nil {
            fetchedElsewhere = { number in
                do {
                    guard let latest = try await store.latestShipment(of: number), let shipment = latest.shipment
                    else { return nil }
                    return (shipment, latest.fetchedAt)
                } catch {
                    // Asked upstream instead.
                    failures.report(.readShared, error, context: ["number": "\(number.masked)"])
                    return nil
                }
            }
        }
        // Each carrier its own scheduler; on a shared database each carrier's budget is the servers' shared one.
        let client = MultiCarrierClient(
            clients: try configuration.carrierClients.map { settings in
                TrackingClient(
                    configuration: settings, transport: transport, clock: clock,
                    budget: try shared?.upstreamBudget(
                        carrier: settings.carrier, maxConcurrent: settings.maxConcurrentRequests,
                        minimumInterval: settings.minimumRequestInterval, clock: clock,
                        failed: { [failures, carrier = settings.carrier] error in
                            failures.report(.sharedBudget, error, context: ["carrier": "\(carrier)"])
                        }),
                    observer: { [metrics, pageWatch, carrier = settings.carrier] report in
                        metrics.record(report, carrier: carrier)
                        pageWatch.observe(report, carrier: carrier)
                    })
            }, clock: clock)
        let service = ShipmentService(
            client: client, clock: clock, metrics: metrics, configuration: configuration.shipments, fetched: record,
            shared: fetchedElsewhere)
        self.service = service
        let sink = log
        let events = sink.map { ServerLogging.events(format: configuration.logFormat, sink: $0) }
        self.flushLog = flushLog

        let poller = WatchPoller(store: store, clock: clock, schedule: schedule, failures: failures) {
            number, carrier in
            if case .fresh = await service.check(number, carrier: carrier, priority: .background) { return true }
            return false
        }
        // A delivery's lease outlasts an attempt (10 s) even on a fast poll clock.
        let sender: any WebhookSender =
            webhookSender
            ?? CurlDeliverySender(allowPrivate: configuration.allowPrivateWebhooks, caFile: configuration.caFile)
        let attemptLog = events
        let deliverer = WebhookDeliverer(
            store: store, sender: sender, clock: clock, lease: max(15, WebhookDeliverer.defaultLease / schedule.speed),
            failures: failures, log: attemptLog)
        let vapid = resources.vapid
        let channelOffer = ChannelOffer(
            kinds: configuration.channelKinds,
            server: ChannelServer(
                hasVAPID: vapid != nil, sendsMail: configuration.smtp != nil, settings: configuration.channelSettings))
        let channelDeliverer = ChannelDeliverer(
            store: store,
            sender: channelSender
                ?? CurlDeliverySender(allowPrivate: configuration.allowPrivateWebhooks, caFile: configuration.caFile),
            mail: Self.mail(configuration, sender: mailSender),
            clock: clock, vapid: vapid, publicURL: configuration.publicURL, offer: channelOffer,
            lease: max(15, WebhookDeliverer.defaultLease / schedule.speed), failures: failures, log: attemptLog)
        let tick = Duration.milliseconds(Int64(max(50, min(1_000, 1_000 / schedule.speed))))
        let noticeMail = Self.noticeMail(configuration, key: resources.noticeKey, sender: mailSender)
        let noticeDeliverer = noticeMail.map { mail in
            CustomerNoticeDeliverer(
                store: store, mail: mail, clock: clock, perSecond: configuration.noticeRate,
                lease: max(15, WebhookDeliverer.defaultLease / schedule.speed), failures: failures, log: attemptLog)
        }
        let outbox = OutboxDeliverer(
            lanes: [deliverer, channelDeliverer] + (noticeDeliverer.map { [$0] } ?? []), clock: clock)
        let keyRing = APIKeyRing(store: store, maxAge: configuration.keyRefresh, clock: clock, failures: failures)
        self.keyRing = keyRing
        var background: [any BackgroundService] = [
            PollerService(poller: poller, tick: tick),
            OutboxService(outbox: outbox, tick: tick, doorbell: outboxDoorbell),
            ArrivalsService(
                store: store, clock: clock, lead: configuration.arrivingSoonLead, tick: tick, failures: failures),
            RecorderService(recorder: recorder, tick: tick, clock: clock),
            PageWatchService(pageWatch: pageWatch, tick: tick),
            CanaryService(pageWatch: pageWatch, service: service, interval: configuration.canaryInterval),
            WaitingService(store: store, clock: clock, failures: failures) { outboxDoorbell.ring() },
            MorningSummaryService(store: store, clock: clock, failures: failures) { outboxDoorbell.ring() },
            keyRing,
        ]
        background.append(AuditLogService(accounts: store, clock: clock, failures: failures))
        if let shared {
            background.append(
                SharedShipmentsService(shared: shared, service: service, events: events, failures: failures))
        }
        if let after = configuration.forgetFinishedAfter {
            background.append(
                ForgetFinishedService(store: store, clock: clock, after: after, failures: failures) { removed in
                    notices.info("forgot \(removed) finished watches last checked over \(Int(after / .seconds(1))) s ago")
                })
        }
        if configuration.http.tls != nil {
            background.append(CertificateReloadService { line in notices.info("\(line)") })
        }
        // Mail is read off the cooperative pool, a few at a time, uploads and the mailbox alike.
        let mailLanes = MailReadingLanes()
        var mailboxReader: MailboxReader?
        if var mailbox = configuration.mailbox {
            mailbox.caFile = mailbox.caFile ?? configuration.caFile
            let reader = MailboxReader(
                settings: mailbox, store: store, clock: clock, markSeen: configuration.mailboxMarkSeen,
                moveTo: configuration.mailboxMoveTo, failures: failures, lanes: mailLanes,
                log: notices, added: {})
            mailboxReader = reader
            background.append(MailboxService(reader: reader, interval: configuration.mailboxInterval))
        }
        self.mailboxReader = mailboxReader
        if var mqtt = configuration.mqtt {
            mqtt.caFile = mqtt.caFile ?? configuration.caFile
            mqtt.clientID = Secrets.random(bytes: 6, prefix: "kuroneko-")
            background.append(
                HomeAssistantService(
                    client: HomeAssistantService.client(mqtt, settings: configuration.homeAssistant),
                    settings: configuration.homeAssistant, store: store, clock: clock, failures: failures,
                    refresh: { watches in await Self.check(watches, service: service) },
                    log: notices))
        }
        background += moreServices
        self.background = background
        let serviceStates = ServiceStates(names: background.map(\.name))
        self.serviceStates = serviceStates
        // Sessions the gate lets in, known to the HTTP layer before a large body is read.
        let confirmedSessions = ConfirmedSessions(clock: clock)
        let bodyBudget = BodyBudget(
            total: configuration.http.bodyBudgetBytes, unconfirmedShare: configuration.http.unconfirmedBodyBytes)
        self.bodyBudget = bodyBudget
        application = APIApplication.make(
            service: service, metrics: metrics, httpMetrics: HTTPMetrics(registry: metrics.registry), clock: clock,
            corsOrigins: configuration.corsOrigins, log: sink, logFormat: configuration.logFormat,
            watches: WatchRoutes(
                store: store, service: service, clock: clock, allowPrivateWebhooks: configuration.allowPrivateWebhooks,
                vapid: vapid, channels: channelOffer, failures: failures, mailLanes: mailLanes, notices: noticeMail,
                secureCookies: configuration.http.tls != nil || configuration.publicURL?.scheme?.lowercased() == "https",
                passkeyKey: Secrets.hmacSHA256(key: resources.noticeKey, message: Data("passkey challenges".utf8)),
                publicURL: configuration.publicURL),
            keys: APIKeyMiddleware(ring: keyRing, required: configuration.requireAPIKey, sessions: confirmedSessions),
            webApp: configuration.webApp ? Self.webApp(demo: configuration.demo) : nil,
            pageWatch: pageWatch, mailbox: mailboxReader,
            moreMetrics: { registry in
                await WatchListMetrics.record(
                    poller: poller, deliverer: deliverer, store: store, failures: failures, recorder: recorder,
                    notices: noticeDeliverer, into: registry)
                bodyBudget.record(into: registry)
            },
            gate: SessionGate(accounts: store, clock: clock, failures: failures, confirmed: confirmedSessions),
            trustedProxies: Set(configuration.trustedProxies.compactMap(ClientAddress.key)), services: serviceStates)
    }

    /// Checks watches now, ten at a time (the service's queue keeps the carriers' pace).
    static func check(_ watches: [Watch], service: ShipmentService) async {
        var rest = watches[...]
        while !rest.isEmpty, !Task.isCancelled {
            let batch = rest.prefix(10)
            rest = rest.dropFirst(10)
            await withTaskGroup(of: Void.self) { group in
                for watch in batch {
                    group.addTask { _ = await service.check(watch.number, carrier: watch.carrier, priority: .refresh) }
                }
            }
        }
    }

    /// Where e-mail goes: the configured SMTP server (trusting `--ca-file`), through `sender` when given.
    /// The dashboard, its forms allowed to post to every carrier whose tracking page answers a POST only.
    static func webApp(demo: Bool) -> WebApp {
        var app = demo ? WebApp.embeddedDemo : WebApp.embedded
        app.formOrigins = Set(
            CarrierRegistry.definitions.filter { $0.trackingLink.method == .post }.compactMap { definition -> String? in
                guard let url = URL(string: definition.trackingLink.url), let scheme = url.scheme, let host = url.host
                else { return nil }
                return scheme + "://" + host
            }
        ).sorted()
        return app
    }

    /// What customer notices go out with: the SMTP server and `--public-url` (for the stop link), or `nil`.
    private static func noticeMail(_ configuration: Configuration, key: String, sender: (any MailSender)?)
        -> CustomerNoticeMail?
    {
        guard var smtp = configuration.smtp, let publicURL = configuration.publicURL, !key.isEmpty else { return nil }
        if smtp.caFile == nil { smtp.caFile = configuration.caFile }
        return CustomerNoticeMail(
            sender: sender ?? CurlMailSender(settings: smtp), from: smtp.from, publicURL: publicURL, stopKey: key)
    }

    private static func mail(_ configuration: Configuration, sender: (any MailSender)?) -> ChannelDeliverer.Mail? {
        guard var smtp = configuration.smtp else { return nil }
        if smtp.caFile == nil { smtp.caFile = configuration.caFile }
        return ChannelDeliverer.Mail(sender: sender ?? CurlMailSender(settings: smtp), from: smtp.from)
    }

    /// Listens, tells the service manager it is ready, runs every service until `stop` returns (the name of
    /// the signal that came), then drains: new connections refused, queued lookups answered 503, requests in
    /// flight given up to ``Configuration/shutdownTimeout``, then the services stopped.
    /// - Throws: ``ServerStartError`` when the address cannot be listened on.
    /// Where `--http-redirect-port` sends a client: `--public-url`'s https origin when it has one, else the https
    /// address listened on.
    static func redirectOrigin(_ publicURL: URL?, https: HTTPServer) -> String {
        if let publicURL, publicURL.scheme?.lowercased() == "https", let host = publicURL.host {
            let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return "https://\(shown)" + (publicURL.port.map { ":\($0)" } ?? "")
        }
        return "https://\(https.urlHost)" + (https.port == 443 ? "" : ":\(https.port)")
    }

    /// With no account yet, a one-time link that makes the first (the admin of every list), for 24 hours: an
    /// invitation like an admin's, said in the log the operator reads. Each start without an account makes a new one.
    func announceSetUpLink(origins: [String]) async {
        let accounts = store
        guard (try? await accounts.hasAccounts()) == false else { return }
        let token = Secrets.random(bytes: 32, prefix: "inv_")
        let now = clock.now
        do {
            try await accounts.createInvitation(
                tokenHash: Secrets.sha256(token), list: "local", role: .admin, madeBy: nil, at: now,
                expiresAt: now.addingTimeInterval(86_400))
        } catch {
            notices.warning("no account yet, and the set-up link could not be made: \(error)")
            return
        }
        let links = origins.map { "\($0)/join#\(token)" }
        let link = links.first ?? "/join#\(token)"
        let others = links.dropFirst()
        let elsewhere = others.isEmpty ? "" : "; the same link at this machine's other addresses: " + others.joined(separator: " ")
        notices.info(
            """
            no account yet: \(link) makes the first, the admin of every list (once, within 24 hours; or kuroneko \
            users add NAME)\(elsewhere); until then the API is open to anyone who can reach it
            """,
            metadata: ["setup_url": .stringConvertible(JSONOnly(.string(link)))])
        if configuration.setUpLinkQRCode, configuration.logFormat == .text, let drawing = TerminalQRCode.drawing(of: link) {
            notices.info("the set-up link for a phone's camera:\n\(drawing)")
        }
    }

    public func run(environment: [String: String], until stop: @escaping @Sendable () async -> String) async throws {
        var served = configuration.http
        // A saved mail is larger than the other bodies.
        served.largerBodies[WatchRoutes.mailPath] = WatchRoutes.mailBytes
        served.largerBodies[WatchRoutes.importPath] = WatchRoutes.importBytes
        LargeAllocations.returnToTheSystem()
        // The keys in force before the first request (a ring never read lets nobody in).
        await keyRing.refresh()
        let http = try HTTPServer(configuration: served, application: application, bodyBudget: bodyBudget)
        let url = "\(http.scheme)://\(http.urlHost):\(http.port)"
        if let line = http.tlsLine { notices.info("\(line)") }
        var redirect: HTTPServer?
        if let port = configuration.httpRedirectPort, configuration.http.tls != nil {
            var plain = configuration.http
            plain.tls = nil
            plain.port = port
            redirect = try HTTPServer(
                configuration: plain,
                application: HTTPSRedirect(origin: Self.redirectOrigin(configuration.publicURL, https: http)))
            notices.info("redirecting http://\(http.urlHost):\(redirect?.port ?? port) to \(url)")
        }
        notices.info(
            "listening on \(url)", metadata: startFields(http).merging(["url": .stringConvertible(JSONOnly(.string(url)))]) { $1 })
        let manager = ServiceManagerNotifier(environment: environment)
        if !manager.notify("READY=1\nSTATUS=listening on \(url)"), manager.isAsked {
            notices.warning(
                """
                NOTIFY_SOCKET is set but READY=1 could not be sent there (a path of at most 107 bytes, or @name for \
                the abstract namespace, is expected); a Type=notify unit will time out
                """,
                metadata: ["notify_socket": .stringConvertible(JSONOnly(.string(environment["NOTIFY_SOCKET"] ?? "")))])
        }
        // An address a phone can open: the public URL, else the one listened on, else (every address) this machine's.
        await announceSetUpLink(
            origins: SetUpLinkOrigins.origins(
                publicOrigin: configuration.publicURL.map(VAPID.origin(of:)), scheme: http.scheme, host: http.urlHost,
                port: Int(http.port), machine: ["0.0.0.0", "[::]"].contains(http.urlHost) ? SetUpLinkOrigins.machineAddresses() : []))
        // The services under swift-service-lifecycle's ServiceGroup, in order of dependence, and the HTTP server's
        // drain last: a graceful shutdown drains first, then stops the services one at a time, last started first.
        let reason = StopReason()
        // Told once the group runs (its last member has started): a shutdown asked for before that would find the
        // group not yet running, and ServiceGroup would then never run it.
        let (groupRuns, markRunning) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let drain = DrainService(
            server: self, http: http, redirect: redirect, manager: manager, reason: reason, running: markRunning)
        var members = background.map { service in
            ServiceGroupConfiguration.ServiceConfiguration(
                service: ServiceSupervisor(
                    service: service, states: serviceStates, notices: notices, stopped: serviceStopped),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        members.append(
            .init(
                service: drain, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        // The group's own lines are its internals; what ends and why is said by the supervisors above.
        var quiet = notices
        quiet.logLevel = .critical
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: members, logger: quiet))
        // The signal (or the caller's stop) starts the group's graceful shutdown.
        let stopping = Task {
            let signal = await stop()
            guard !Task.isCancelled else { return }
            // A signal sent right after READY=1 may come before the group runs.
            for await _ in groupRuns { break }
            guard !Task.isCancelled else { return }
            reason.set(signal)
            await group.triggerGracefulShutdown()
        }
        defer { stopping.cancel() }
        do {
            try await group.run()
        } catch {
            // Said by the supervisor that threw; the state below is what ends the run.
        }
        let flushLog = self.flushLog
        await awaitBlocking { flushLog() }
        notices.info(
            "stopped after \(drain.elapsed) s; requests cut off at the deadline: \(drain.cutOff)",
            metadata: ["cut_off": .stringConvertible(JSONOnly(.stringConvertible(drain.cutOff)))])
        if let ended = serviceStates.ended { throw ServiceEnded(name: ended.name, state: ended.state) }
    }

    /// The HTTP server's part in the group: it serves until the group shuts down gracefully (a signal, or a
    /// service that ended), then drains: new connections refused, queued lookups answered 503, requests in
    /// flight given up to ``Configuration/shutdownTimeout``.
    final class DrainService: ServiceLifecycle.Service, Sendable {
        let server: Server
        let http: HTTPServer
        let redirect: HTTPServer?
        let manager: ServiceManagerNotifier
        let reason: StopReason
        let running: AsyncStream<Void>.Continuation
        private let outcome = Mutex<(started: ContinuousClock.Instant?, cutOff: Int)>((nil, 0))

        init(
            server: Server, http: HTTPServer, redirect: HTTPServer?, manager: ServiceManagerNotifier, reason: StopReason,
            running: AsyncStream<Void>.Continuation
        ) {
            self.running = running
            self.server = server
            self.http = http
            self.redirect = redirect
            self.manager = manager
            self.reason = reason
        }

        /// Seconds since the drain began (0 if it never did).
        var elapsed: Double { outcome.withLock { $0.started.map { (ContinuousClock.now - $0) / .seconds(1) } ?? 0 } }
        var cutOff: Int { outcome.withLock { $0.cutOff } }

        func run() async throws {
            running.yield()
            // Returns at the group's graceful shutdown; throws only when the group cancels it (a service that
            // threw), which drains all the same.
            try? await gracefulShutdown()
            if let ended = server.serviceStates.ended { reason.set("the service \(ended.name) \(ended.state.text)") }
            let cause = reason.text.hasPrefix("SIG") ? "\(reason.text) received" : reason.text
            outcome.withLock { $0.started = ContinuousClock.now }
            manager.notify("STOPPING=1\nSTATUS=\(cause), draining")
            let flushLog = server.flushLog
            await awaitBlocking { flushLog() }
            server.notices.info(
                """
                \(cause): refusing new connections, answering queued lookups 503, finishing requests in \
                flight for up to \(server.configuration.shutdownTimeout / .seconds(1)) s; a second signal exits now
                """,
                metadata: ["signal": .stringConvertible(JSONOnly(.string(reason.text)))])
            http.stopAccepting()
            await redirect?.shutdown(deadline: .seconds(1))
            for client in server.service.client.clients.values { await client.scheduler.shutDown() }
            let cutOff = await http.shutdown(deadline: server.configuration.shutdownTimeout)
            outcome.withLock { $0.cutOff = cutOff }
        }
    }

    /// Reads the certificate and key again (SIGHUP) and says in one line what is served now, or why the new
    /// pair was refused (the old one serves on).
    public func reloadCertificates() {
        guard configuration.http.tls != nil else {
            notices.info("SIGHUP received: nothing to reload (no --tls-cert)")
            return
        }
        if let line = TLSCertificates.shared.reload() { notices.info("\(line)") }
    }

    /// The settings in force, for the start-up line.
    private func startFields(_ http: HTTPServer) -> Logger.Metadata {
        let client = configuration.client
        let cache = configuration.shipments.cache
        let seconds = { (duration: Duration) in Logger.MetadataValue.stringConvertible(duration / .seconds(1)) }
        let number = { (value: Int) in Logger.MetadataValue.stringConvertible(value) }
        let flag = { (value: Bool) in Logger.MetadataValue.stringConvertible(value) }
        let fields: Logger.Metadata = [
            "upstream": .string(configuration.upstreamName ?? client.endpoint.absoluteString),
            "timeout_s": seconds(client.requestTimeout), "max_concurrent": number(client.maxConcurrentRequests),
            "min_interval_s": seconds(client.minimumRequestInterval), "cache_size": number(cache.capacity),
            "ttl_terminal_s": seconds(cache.terminalTTL), "ttl_active_s": seconds(cache.activeTTL),
            "ttl_invalid_s": seconds(cache.invalidTTL),
            "batch_window_ms": .stringConvertible(client.batchWindow / .milliseconds(1)),
            "queue_deadline_s": seconds(client.lookupDeadline ?? .zero),
            "queue_capacity": number(client.queueCapacity),
            "breaker_failures": number(client.circuitBreaker.failureThreshold),
            "breaker_cool_down_s": seconds(client.circuitBreaker.coolDown),
            "connections_per_client": number(configuration.http.connectionsPerAddress),
            "max_connections": number(http.connectionLimit),
            "receive_timeout_s": number(configuration.http.receiveTimeoutSeconds),
            "cors_origins": .string(configuration.corsOrigins.isEmpty ? "none" : configuration.corsOrigins.joined(separator: ",")),
            "shutdown_timeout_s": seconds(configuration.shutdownTimeout),
            "db": .string(DatabaseLocation.shown(configuration.database)),
            "poll_speed": .stringConvertible(configuration.pollSpeed),
            "allow_private_webhooks": flag(configuration.allowPrivateWebhooks),
            "require_api_key": flag(configuration.requireAPIKey),
            "web_app": .string(configuration.webApp ? "/" : "off"),
            "log_format": .string(configuration.logFormat.rawValue),
        ]
        return fields.merging(Self.smtpFields(configuration.smtp)) { $1 }
    }

    /// The SMTP server by scheme, host and port, how STARTTLS is used and whether AUTH is: never the
    /// credentials.
    private static func smtpFields(_ smtp: SMTPSettings?) -> Logger.Metadata {
        guard let smtp else { return ["smtp": "off"] }
        let port = smtp.url.port.map { ":\($0)" } ?? ""
        return [
            "smtp": .string("\(smtp.url.scheme ?? "smtp")://\(smtp.url.host ?? "")\(port)"),
            "smtp_starttls": .string(smtp.startTLS.rawValue), "smtp_auth": .stringConvertible(smtp.credentials != nil),
        ]
    }
}
