import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoSimulator

/// The long-running commands: the server and the simulator.
extension CommandCatalog {
    static let serve = CommandSpec(
        name: "serve", synopsis: "[options]",
        summary: "run the REST API (--demo: against a built-in simulator of every carrier)",
        description: [
            "Serves the REST API until SIGINT or SIGTERM: GET /v1/shipments/{number}, GET /v1/shipments?numbers=a,b, "
                + "POST /v1/shipments/query, POST /v1/tneko, /healthz, /readyz, /metrics, /openapi.json. Every option "
                + "can also be set with the environment variable named beside it; the flag wins."
        ],
        options: [
            .value(
                "--host", "ADDRESS", default: serverDefaults.http.host, environment: "KURONEKO_HOST",
                "address or name to listen on: 127.0.0.1, 0.0.0.0, ::1, :: (IPv6 and IPv4), localhost"),
            .value(
                "--port", "PORT", .number(0...65_535), default: "\(serverDefaults.http.port)",
                environment: "KURONEKO_PORT", "port, 0 for any free one"),
            endpoint, caFile,
            .flag("--demo", environment: "KURONEKO_DEMO", "use a built-in simulator as every carrier"),
            timeout,
            .value(
                "--max-concurrent", "N", .number(1...16), default: "\(serverDefaults.client.maxConcurrentRequests)",
                environment: "KURONEKO_MAX_CONCURRENT", "requests to Yamato at once"),
            .value(
                "--min-interval", "SECONDS", .seconds(0...60),
                default: seconds(serverDefaults.client.minimumRequestInterval),
                environment: "KURONEKO_MIN_INTERVAL", "between the starts of requests to Yamato"),
            .value(
                "--cache-size", "N", .number(1...10_000_000), default: "\(serverDefaults.shipments.cache.capacity)",
                environment: "KURONEKO_CACHE_SIZE", "shipments kept"),
            .value(
                "--ttl-terminal", "SECONDS", .seconds(0...year),
                default: seconds(serverDefaults.shipments.cache.terminalTTL),
                environment: "KURONEKO_TTL_TERMINAL", "how long a delivered or returned parcel is cached"),
            .value(
                "--ttl-active", "SECONDS", .seconds(0...year),
                default: seconds(serverDefaults.shipments.cache.activeTTL),
                environment: "KURONEKO_TTL_ACTIVE", "how long a parcel still moving is cached"),
            .value(
                "--ttl-invalid", "SECONDS", .seconds(0...year),
                default: seconds(serverDefaults.shipments.cache.invalidTTL),
                environment: "KURONEKO_TTL_INVALID", "how long an invalid number's answer is cached"),
            .value(
                "--batch-window-ms", "MS", .number(0...10_000),
                default: milliseconds(serverDefaults.client.batchWindow),
                environment: "KURONEKO_BATCH_WINDOW_MS", "gather lookups this long per request to Yamato"),
            .value(
                "--queue-deadline", "SECONDS", .seconds(0.1...3_600),
                default: serverDefaults.client.lookupDeadline.map(seconds), environment: "KURONEKO_QUEUE_DEADLINE",
                "longest a lookup waits for Yamato; one that would wait longer is answered 503 at once, one whose "
                    + "deadline passes 504"),
            .value(
                "--queue-capacity", "N", .number(1...1_000_000), default: "\(serverDefaults.client.queueCapacity)",
                environment: "KURONEKO_QUEUE_CAPACITY", "numbers waiting for a request to Yamato, at most"),
            .value(
                "--breaker-failures", "N", .number(1...1_000),
                default: "\(serverDefaults.client.circuitBreaker.failureThreshold)",
                environment: "KURONEKO_BREAKER_FAILURES",
                "failed requests in a row that open the circuit"),
            .value(
                "--breaker-cool-down", "SECONDS", .seconds(0.1...3_600),
                default: seconds(serverDefaults.client.circuitBreaker.coolDown),
                environment: "KURONEKO_BREAKER_COOL_DOWN",
                "before a probe request is let through"),
            .value(
                "--connections-per-client", "N", .number(1...100_000),
                default: "\(serverDefaults.http.connectionsPerAddress)", environment: "KURONEKO_CONNECTIONS_PER_CLIENT",
                "open connections per address; requests on more are answered 503"),
            .value(
                "--max-connections", "N", .number(16...1_000_000), environment: "KURONEKO_MAX_CONNECTIONS",
                "open connections from all clients (default: what the open-file limit allows, less 128)"),
            .value(
                "--receive-timeout", "SECONDS", .number(0...3_600),
                default: "\(serverDefaults.http.receiveTimeoutSeconds)", environment: "KURONEKO_RECEIVE_TIMEOUT",
                "for a request to arrive, headers and body, however slowly it trickles in; 0 for none"),
            .value(
                "--cors-origins", "LIST", environment: "KURONEKO_CORS_ORIGINS",
                "origins allowed to call the API from a browser, comma-separated, or * for any (default none)"),
            .value(
                "--trusted-proxy", "ADDRESSES", environment: "KURONEKO_TRUSTED_PROXY",
                "IP addresses of reverse proxies in front of the server, comma-separated: from them the client is the "
                    + "address they put last in X-Forwarded-For, for the sign-in throttle (default none: the header is "
                    + "ignored)"),
            .value(
                "--db", "PATH", environment: "KURONEKO_DB",
                "the watch list: an SQLite file (default $XDG_DATA_HOME/kuroneko/kuroneko.sqlite; with --demo, a "
                    + "temporary file removed at exit) or a postgres:// URL shared by several servers"),
            .value(
                "--max-watches-per-owner", "N", .number(1...Double(WatchLimits.maxWatchesPerOwnerSetting)),
                default: "\(WatchLimits.defaultWatchesPerOwner)", environment: "KURONEKO_MAX_WATCHES_PER_OWNER",
                "the most watches one API key (or everyone, without keys) may have; adding more is refused"),
            .value(
                "--unregistered-grace", "DURATION", default: "3d", environment: "KURONEKO_UNREGISTERED_GRACE",
                "how long a number its carrier does not know yet (伝票番号未登録) counts as waiting, not a problem"),
            .value(
                "--forget-finished-after", "DURATION", environment: "KURONEKO_FORGET_FINISHED_AFTER",
                "remove finished parcels (every owner's) last checked longer ago than this, e.g. 90d (default: keep)"),
            .value(
                "--tls-cert", "FILE", environment: "KURONEKO_TLS_CERT",
                "serve https with this certificate chain (PEM, the server's first; TLS 1.2 and 1.3), re-read on "
                    + "SIGHUP and within 10 s of the file changing"),
            .value(
                "--tls-key", "FILE", environment: "KURONEKO_TLS_KEY", "the private key of --tls-cert (PEM)"),
            .value(
                "--http-redirect-port", "PORT", .number(0...65_535), environment: "KURONEKO_HTTP_REDIRECT_PORT",
                "with --tls-cert, also listen for plain http on PORT (0: any free one) and redirect every request to https "
                    + "under --public-url (needed with --host :: or 0.0.0.0) or the address listened on, never the request's Host"),
            .value(
                "--public-url", "URL", .url, environment: "KURONEKO_PUBLIC_URL",
                "where people reach the web app, e.g. https://parcels.example.jp: notifications link to the parcel "
                    + "there (default: no link)"),
        ] + MailboxOptions.options + MQTTOptions.options + [
            .value(
                "--canary", "CARRIER=NUMBER", environment: "KURONEKO_CANARY",
                "a number you know at a carrier (e.g. a delivered parcel of your own), asked every --canary-every so a "
                    + "changed page is noticed on a quiet server; comma-separated or given again, one per carrier"),
            .value(
                "--canary-every", "SECONDS", .seconds(600...604_800), default: seconds(serverDefaults.canaryInterval),
                environment: "KURONEKO_CANARY_EVERY", "how often each --canary number is asked (background priority)"),
            .value(
                "--arriving-soon", "SECONDS", .seconds(60...86_400), default: seconds(serverDefaults.arrivingSoonLead),
                environment: "KURONEKO_ARRIVING_SOON",
                "how long before a forecast window starts arriving_soon is announced"),
            lineOrigin, channelSetting,
            .value(
                "--notice-rate", "PER_SECOND", .number(0.1...1_000), default: number(serverDefaults.noticeRate),
                environment: "KURONEKO_NOTICE_RATE",
                "customer notices sent per second at most, every shop together (they need --smtp-url and --public-url)"),
            .value(
                "--vapid-subject", "URL", default: serverDefaults.vapidSubject, environment: "KURONEKO_VAPID_SUBJECT",
                "the mailto: or https: contact Web Push services may use to reach the operator"),
            .value(
                "--poll-speed", "FACTOR", .number(0.001...1_000_000), default: number(serverDefaults.pollSpeed),
                environment: "KURONEKO_POLL_SPEED", "divide every polling interval by this, for demos and tests"),
            .flag(
                "--allow-private-webhooks", environment: "KURONEKO_ALLOW_PRIVATE_WEBHOOKS",
                "let webhooks go to loopback and private addresses (for a receiver on this machine or network)"),
            .flag(
                "--require-api-key", environment: "KURONEKO_REQUIRE_API_KEY",
                "ask for an API key on every /v1 route even before any key exists"),
            .flag(
                "--no-web-app", environment: "KURONEKO_NO_WEB_APP",
                "leave out the parcel dashboard at / (the API alone)"),
            .value(
                "--log-format", "FORMAT", .choice(["text", "json"]), default: serverDefaults.logFormat.rawValue,
                environment: "KURONEKO_LOG_FORMAT",
                "text, or json: every line on standard error one JSON object with time, level and msg"),
            .value(
                "--shutdown-timeout", "SECONDS", .seconds(0...3_600), default: seconds(serverDefaults.shutdownTimeout),
                environment: "KURONEKO_SHUTDOWN_TIMEOUT",
                "on SIGTERM or SIGINT, how long requests in flight may still take before they are answered 503"),
        ] + SMTPOptions.specs,
        operands: .none,
        examples: [
            ("kuroneko serve --demo --port 8080", "the API against the built-in simulator"),
            ("KURONEKO_PORT=9000 kuroneko serve --cors-origins https://shop.example", "the real Yamato, for one site"),
        ])

    static let simulate = CommandSpec(
        name: "simulate", synopsis: "[options]", summary: "run a stand-in for the carriers' tracking pages",
        description: [
            "Serves a stand-in for every carrier's tracking pages at their real paths (Yamato's form POST "
                + "/cgi-bin/tneko, and the others' pages) until SIGINT or SIGTERM. Each parcel's carrier and journey "
                + "follow from its number and the simulator's clock (" + SimulatedCarriers.ownershipInWords
                + "; any other number is Yamato's); a wrong check digit gives 伝票番号誤り. Admin endpoints: GET /admin/stats, GET and PUT /admin/faults, GET and PUT /admin/clock."
        ],
        options: [
            .value("--host", "ADDRESS", default: "127.0.0.1", "IPv4 address to listen on"),
            .value("--port", "PORT", .number(0...65_535), default: "8081", "port, 0 for any free one"),
            .value("--start", "TIME", .time, "the simulated time to start at, ISO 8601 (default: now)"),
            .value("--speed", "FACTOR", .number(0...1_000_000), default: "1", "simulated seconds per real second"),
            .value("--latency-ms", "MS", .number(0...600_000), default: "0", "delay every answer this long"),
            .value(
                "--error-rate", "SHARE", .number(0...1), default: "0", "answer this share of requests with HTTP 500"),
            .flag("--fail", "answer every request with HTTP 500"),
            .value(
                "--hang-seconds", "S", .number(0...3_600), default: "0", "hold every request this long before answering"
            ),
            .flag("--truncate", "cut every page off halfway"),
            .flag(
                "--changed-layout",
                "serve every carrier's pages in a changed layout (a renamed class or table, and a sender's name and "
                    + "telephone), as after a redesign"),
        ],
        operands: .none,
        examples: [
            ("kuroneko simulate --port 8081 --latency-ms 300", "a slow stand-in"),
            (
                "S=http://127.0.0.1:8081; kuroneko track --endpoint yamato=$S/cgi-bin/tneko,sagawa=$S,japanpost=$S "
                    + "3277-5445-9830 812345678900 912345678904",
                "track numbers of three carriers against it"
            ),
        ])
}
