import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoSimulator

/// Every command of the tool, each described once (its options with their kinds, ranges and defaults).
enum CommandCatalog {
    /// The commands, in the order help lists them; each a type that runs from its parsed arguments.
    static let commands: [any Command.Type] = [
        TrackCommand.self, ParseCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self,
        RemoveCommand.self, RefreshCommand.self, WatchCommand.self, ImportCommand.self, IntakeCommand.self, KeysCommand.self,
        ChannelsCommand.self, NotifyTestCommand.self, PagesCommand.self, DatabaseCommand.self, ServeCommand.self, SimulateCommand.self,
        CompletionCommand.self, HelpCommand.self,
    ]

    static let all = commands.map { $0.spec }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// The library's own defaults, which the options' defaults are read from rather than written again.
    private static let clientDefaults = TrackingClient.Configuration()
    private static let serverDefaults = Server.Configuration()

    private static let endpoint = OptionSpec.value(
        "--endpoint", "URL", .endpoints, environment: "KURONEKO_ENDPOINT",
        "where the carriers' sites are: a URL is Yamato's form (default "
            + "\(clientDefaults.endpoint.absoluteString)); CARRIER=ORIGIN puts that carrier's real paths under "
            + "ORIGIN (sagawa=http://127.0.0.1:8081); several comma-separated or the option again")
    static let excelFlag = OptionSpec.flag(
        "--excel", "for Excel: a UTF-8 BOM, CRLF line ends, and every long number written so Excel keeps it whole")

    static let lineOrigin = OptionSpec.value(
        "--line-origin", "URL", .url, default: ChannelContext.lineAPI.absoluteString,
        environment: "KURONEKO_LINE_ORIGIN", "where LINE's Messaging API is (a stand-in for tests)")

    static let caFile = OptionSpec.value(
        "--ca-file", "FILE", .certificates, environment: "KURONEKO_CA_FILE",
        "a PEM file of the certificate authorities to trust for https, instead of the system's (a private "
            + "authority, or tests)")
    private static let carrier = OptionSpec.value(
        "--carrier", "CARRIER", .choice(Carrier.allCases.map(\.rawValue)),
        "look every number up at this carrier; without it each number's carrier is found (" + CarrierRegistry.formsInWords
            + ")")
    private static let timeout = OptionSpec.value(
        "--timeout", "SECONDS", .seconds(0.1...600), default: seconds(clientDefaults.requestTimeout),
        environment: "KURONEKO_TIMEOUT", "per request to Yamato")
    private static let minInterval = OptionSpec.value(
        "--min-interval", "SECONDS", .seconds(0...60), default: seconds(clientDefaults.minimumRequestInterval),
        environment: "KURONEKO_MIN_INTERVAL",
        "between the starts of requests to each carrier (lower it only for a simulator of your own)")
    private static let language = OptionSpec.value(
        "--lang", "LANG", .choice(["ja", "en"]), default: "ja", "language of the status labels")
    private static let output: [OptionSpec] = [
        .value(
            "--format", "FORMAT", .choice(["table", "json", "jsonl", "tneko"]),
            "table for people (the default), a JSON array, one JSON shipment per line, or the original app's model"),
        .flag("--json", "the same as --format json"),
        .flag("--jsonl", "the same as --format jsonl"),
        language,
        .flag("--no-color", "never colour the table (also: NO_COLOR set, or TERM=dumb)"),
    ]

    static let track = CommandSpec(
        name: "track", synopsis: "[options] [NUMBER...]", summary: "look numbers up at their carriers",
        description: [
            "Looks the numbers up at their carriers (" + CarrierRegistry.formsInWords + "; or the one --carrier "
                + "names), ten per request where the carrier's site takes ten, and prints each answer in the order given as soon as "
                + "it and every answer before it are known. Numbers may be typed with hyphens, spaces or full-width "
                + "digits. With no NUMBER and standard input not a terminal, or with '-', numbers are read from "
                + "standard input, one per line or separated by commas; blank lines and # comments are ignored.",
            "While numbers are outstanding, progress is shown on standard error when it is a terminal (not with "
                + "--quiet). A number whose request failed after its retries is reported on standard error, one line "
                + "each; every other answer is still printed, and the exit status is 1. Invalid numbers stop the run "
                + "before anything is sent (exit status 2), unless --skip-invalid is given.",
        ],
        options: output + [
            carrier, endpoint, caFile, timeout, minInterval,
            .flag("--skip-invalid", "report invalid numbers on standard error and track the rest"),
            .flag("--quiet", short: "-q", "no progress on standard error"),
        ],
        operands: .numbers,
        examples: [
            ("kuroneko track 3277-5445-9830", "one number, as a table"),
            ("kuroneko track --jsonl 3277-5445-9830 1234-5678-9012", "one JSON shipment per line, as they arrive"),
            ("cat numbers.txt | kuroneko track --lang en", "numbers from a file, English labels"),
        ])

    static let parse = CommandSpec(
        name: "parse", synopsis: "[options] FILE", summary: "read a saved tracking page offline",
        description: [
            "Parses a saved tracking result page (as served by /cgi-bin/tneko) and prints its shipments exactly as "
                + "track would. '-' reads the page from standard input."
        ],
        options: output + [
            .value(
                "--now", "TIME", .time,
                "when the page was fetched, ISO 8601 (e.g. 2026-10-30T12:00:00+09:00); year-less dates are "
                    + "resolved against it (default: now)"),
            .value("--charset", "NAME", "the page's charset, when its <meta> tag is missing or wrong"),
            .value(
                "--carrier", "CARRIER", .choice(Carrier.allCases.map(\.rawValue)),
                "whose page it is (default: found from the page)"),
        ],
        operands: .file,
        examples: [
            ("kuroneko parse page.html --now 2026-10-30T12:00:00+09:00", "a page saved on 30 October 2026"),
            ("curl -s -d number00=1 -d number01=327754459830 URL | kuroneko parse -", "a page from standard input"),
        ])

    private static let database = OptionSpec.value(
        "--db", "PATH", environment: "KURONEKO_DB",
        "the watch list: an SQLite file (default $XDG_DATA_HOME/kuroneko/kuroneko.sqlite) or a postgres:// URL")

    static let add = CommandSpec(
        name: "add", synopsis: "[options] NUMBER...", summary: "watch numbers: check each once and keep it",
        description: [
            "Adds the numbers to the local watch list (no server needed; a running server may use the same file), "
                + "looks each up once, and shows its status. Adding a number already watched changes nothing."
        ],
        options: [
            .value("--label", "TEXT", "a name for the parcels added (at most 200 characters)"), carrier, database,
            endpoint, caFile,
            timeout, minInterval, .flag("--no-color", "never colour the table"),
        ],
        operands: .numbers,
        examples: [("kuroneko add 3277-5445-9830 --label shoes", "watch one parcel, named")])

    static let list = CommandSpec(
        name: "list", synopsis: "[options]", summary: "the watch list: where each parcel is",
        description: [
            "Shows the watched parcels still on their way (with --all, the finished ones too): number, label, "
                + "status, last event, scheduled delivery and when it was last checked. --status, --today, "
                + "--tomorrow, --carrier and --search narrow it. The table is measured in terminal columns (wide "
                + "characters take two) and cut with … to fit the terminal's width (or COLUMNS)."
        ],
        options: [
            .flag("--all", "include delivered, returned and invalid parcels"),
            .value(
                "--status", "LIST",
                "only these status codes or families (pending, accepted, transit, out, delivered, problem), "
                    + "comma-separated; finished parcels included"),
            .flag("--today", "only parcels still on their way whose forecast is today (Japan time)"),
            .flag("--stalled", "only parcels with no new event for longer than their status allows"),
            .flag("--tomorrow", "only parcels still on their way whose forecast is tomorrow"), carrier,
            .value("--search", "TEXT", "only parcels whose label holds TEXT or whose number holds its digits"),
            .flag("--json", "print JSON"),
            .flag("--csv", "print CSV: number, label, active, checked_at and the tracking columns (in --lang)"),
            excelFlag,
            language, database,
            .flag("--no-color", "never colour the table"),
        ],
        operands: .none,
        examples: [
            ("kuroneko list --all --lang en", "every watched parcel, English labels"),
            ("kuroneko list --today", "what is expected today"),
            ("kuroneko list --status problem --csv --excel > 要確認.csv", "every parcel that needs someone, for Excel"),
        ])

    static let show = CommandSpec(
        name: "show", synopsis: "[options] NUMBER", summary: "one watched parcel: its timeline and changes",
        description: ["Shows a watched parcel's full timeline and the log of its status changes."],
        options: [.flag("--json", "print JSON"), language, database], operands: .numbers,
        examples: [("kuroneko show 3277-5445-9830", "the timeline")])

    static let remove = CommandSpec(
        name: "remove", synopsis: "[options] NUMBER... | --finished [--older-than DURATION]",
        summary: "stop watching numbers",
        description: [
            "Removes the numbers from the watch list, with their history and pending webhooks; with --finished, "
                + "every finished parcel (delivered, returned, or a number found to be wrong), or with --older-than "
                + "only those last checked longer ago than that."
        ],
        options: [
            .flag("--finished", "remove every finished parcel"),
            .value("--older-than", "DURATION", "with --finished: only those finished longer ago (e.g. 30d, 12h)"),
            database,
        ],
        operands: .numbers,
        examples: [
            ("kuroneko remove 3277-5445-9830", "forget one parcel"),
            ("kuroneko remove --finished --older-than 30d", "clear what was delivered over a month ago"),
        ])

    static let refresh = CommandSpec(
        name: "refresh", synopsis: "[options]", summary: "check every active watch now",
        description: [
            "Looks up every active watch now, ten per request to Yamato, with progress on a terminal, and prints "
                + "each status change it finds."
        ],
        options: [
            database, endpoint, caFile, timeout, minInterval,
            .flag("--quiet", short: "-q", "no progress on standard error"),
        ],
        operands: .none, examples: [("kuroneko refresh", "check everything once")])

    static let watch = CommandSpec(
        name: "watch", synopsis: "[options]", summary: "keep checking until every parcel is finished",
        description: [
            "Checks every active watch, prints each change as it happens, waits, and checks again, until no parcel "
                + "is left on its way. With --exec, runs the command (through /bin/sh) once per change, with the "
                + "change as JSON on its standard input (the webhook body)."
        ],
        options: [
            .value("--interval", "DURATION", default: "5m", "between rounds: seconds, or with s, m or h"),
            .value("--exec", "COMMAND", "run this for every change, the change as JSON on standard input"), database,
            endpoint, caFile, timeout, minInterval,
        ],
        operands: .none,
        examples: [("kuroneko watch --interval 10m --exec 'cat >> changes.jsonl'", "every change, kept as JSON lines")])

    static let importOutput: String =
        "Writes the same sheet to standard output, every input column in order, with these columns after them: "
        + TrackingColumns.names.joined(separator: ", ")
        + " (named in Japanese under --lang ja; times and dates in ISO 8601; the status and carrier in --lang). "
        + "Rows come out in the file's order as their answers arrive, ten numbers a request. A row without a valid "
        + "number keeps its place with the reason in its error column; the first 20 such rows are also named on "
        + "standard error, the rest counted. A cell that would run as a formula in a spreadsheet (=, +, -, @, a tab "
        + "or a carriage return first) is written with a leading apostrophe. --excel writes a UTF-8 BOM and CRLF, "
        + "which Japanese Excel needs to show UTF-8, and every number of digits Excel would shorten (a leading 0, "
        + "more than 11 digits) as =\"…\"; "

    static let importCSV = CommandSpec(
        name: "import", synopsis: "[options] FILE.csv|-", summary: "track every number in a sheet, and watch them",
        description: [
            "Reads a CSV sheet (a file, or - for standard input; at most 64 MiB) in UTF-8 with or without a BOM, "
                + "UTF-16 by its BOM, or Shift_JIS as Windows and Excel write it (CP932): detected, or as "
                + "--encoding says. A file that is none of them is refused, naming the row of the first byte that "
                + "does not read. The numbers are in one column (--column); Excel's forms =\"123456789012\" and "
                + "'123456789012 are read, its rounded 1.23457E+11 is refused for its row.",
            importOutput
                + "--output-encoding cp932 writes Shift_JIS. With --watch every valid number is added to the local "
                + "watch list with its answer (labelled from --label-column), so one run tracks and watches. "
                + "Progress is shown on a terminal; a summary line (rows, tracked by status, skipped, watched) ends "
                + "the run.",
        ],
        options: [
            .value("--column", "N|NAME", default: "1", "the numbers' column: its number from 1, or its header's name"),
            .value(
                "--encoding", "ENCODING", .choice(["auto"] + SheetEncoding.allCases.map(\.rawValue)), default: "auto",
                "how the sheet is written: detected, or utf-8, utf-16 or cp932 (Shift_JIS)"),
            .value(
                "--output", "FORMAT", .choice(["csv", "json"]), default: "csv",
                "the sheet with tracking columns, or one JSON shipment a line"),
            .value(
                "--output-encoding", "ENCODING", .choice(["utf-8", "cp932"]), default: "utf-8",
                "the sheet's encoding on output (a character CP932 lacks is written ?)"),
            excelFlag, language, carrier,
            .flag("--watch", "add every valid number to the local watch list as it is answered"),
            .value("--label-column", "N|NAME", "with --watch: the column whose text labels each watch"), database,
            endpoint, caFile, timeout, minInterval,
            .flag("--quiet", short: "-q", "no progress and no summary on standard error"),
        ],
        operands: .file,
        examples: [
            ("kuroneko import orders.csv --column 送り状番号 --excel > 追跡結果.csv", "a shop's Shift_JIS export, for Excel"),
            (
                "kuroneko import orders.csv --column tracking_no --watch --label-column order",
                "track and watch in one run"
            ),
        ])

    static let keys = CommandSpec(
        name: "keys", synopsis: "create --name NAME | list | revoke NAME | open",
        summary: "API keys for kuroneko serve",
        description: [
            "Creates, lists and revokes the keys `kuroneko serve` asks for once any exists. A new key and its "
                + "read-only calendar token are printed once; only their hashes are stored. Once a key has "
                + "existed, revoking the last one leaves the API closed to everyone; `keys open` opens it to "
                + "everyone without a key (kept in the database) until a key is created again."
        ],
        options: [.value("--name", "NAME", "the new key's name"), database],
        operands: .choices(["create", "list", "revoke", "open"]),
        examples: [
            ("kuroneko keys create --name shop", "a key for the shop's system"),
            ("kuroneko keys revoke shop", "revoke it"),
        ])

    static let intake = CommandSpec(
        name: "intake", synopsis: "[options] FILE.eml|FILE.mbox|-",
        summary: "the tracking numbers in shipping mails, and watch them",
        description: [
            "Reads saved mail (one .eml, an mbox of many, or - for standard input; at most 512 MiB) and prints each "
                + "message's parcels: number, carrier, shop, the shop's order number and the evidence the number was "
                + "taken on: a carrier's tracking link carrying it (link), a tracking label before it such as "
                + "お問い合わせ伝票番号 or 送り状番号 (label), a carrier named near it (carrier_named), the carrier's own "
                + "mail (sender). Only numbers whose check digit holds are taken (10- and 13-digit ones, which have "
                + "none, only on a link or a label); order, member, item, telephone and postcode numbers, and digits "
                + "joined across separators, never are. A mail whose shop delivers itself (Amazon, "
                + "ヨドバシエクストリームサービス便) is said to have no trackable number. MIME parts, RFC 2047 headers, "
                + "base64 and quoted-printable, and ISO-2022-JP, Shift_JIS (CP932), EUC-JP and UTF-8 are read; HTML "
                + "is read as text with its links. With --watch every parcel is added to the local watch list, "
                + "labelled with the shop and the order, and checked once."
        ],
        options: [
            .flag("--json", "one JSON object per parcel: number, carrier, shop, order, message_id, subject, evidence"),
            .flag("--watch", "add the parcels to the local watch list and check each once"), database, endpoint,
            caFile, timeout, minInterval,
        ],
        operands: .file,
        examples: [
            ("kuroneko intake 発送のお知らせ.eml", "what one saved mail holds"),
            ("kuroneko intake ~/Mail/inbox.mbox --watch", "watch every parcel of a mailbox"),
        ])

    static let pages = CommandSpec(
        name: "pages", synopsis: "list | show ID | export ID FILE",
        summary: "the carriers' pages kuroneko serve could not read, kept (masked) to report a change",
        description: [
            "When a carrier's page is not laid out as the parser knows it (page_not_understood), kuroneko serve "
                + "keeps the page in the database: at most 3 per carrier an hour, 100 or 16 MiB in all, the oldest "
                + "dropped. Before it is kept, tracking, telephone and fax numbers become zeros of the same shape, "
                + "postcodes after 〒 too, and names (text with 様 or 殿) and the text after お届け先, ご依頼主, 住所 and "
                + "similar labels become ○, one per character; the markup is left as it was. list shows the kept "
                + "pages, show one's details, export writes its body to FILE (- for standard "
                + "output) to attach to a report."
        ],
        options: [database],
        operands: .choices(["list", "show", "export"]),
        examples: [
            ("kuroneko pages list", "the kept pages, newest first"),
            ("kuroneko pages export 3 yamato-page.html", "the page to attach to a report"),
        ])

    static let channels = CommandSpec(
        name: "channels",
        synopsis: "add --kind K --url URL|--address ADDRESS|--access-token T --to ID [NUMBER...] | list | remove ID",
        summary: "where the local watch list's news is sent: ntfy, Slack, Discord, webhooks, e-mail, LINE",
        description: [
            "Adds, lists and removes the notification channels of the local owner (the one kuroneko serve uses "
                + "without API keys). A channel hears every watched parcel, or only the NUMBERs given; --kinds "
                + "chooses among changed, delivered, exception, arriving_soon, stalled and page_changed (the operator's "
                + "news that a carrier's page is no longer understood or the mailbox cannot be read, and each read "
                + "again: heard only when named). "
                + "kuroneko serve sends them."
        ],
        options: [
            .value("--kind", "KIND", .choice(ChannelsCommand.kinds), "the channel's kind"),
            .value("--url", "URL", "the ntfy topic, the Slack or Discord incoming webhook, or the webhook's URL"),
            .value("--address", "ADDRESS", "an email channel's address (kuroneko serve sends it through --smtp-url)"),
            .value(
                "--access-token", "TOKEN", environment: "KURONEKO_LINE_ACCESS_TOKEN",
                "a line channel's channel access token (the Messaging API tab of the LINE Developers console)"),
            .value(
                "--to", "IDS", "a line channel's recipients: your user ID (U…), a group ID (C…), user IDs "
                    + "separated by commas, or broadcast (every friend of the account; each costs a message)"),
            .value("--kinds", "LIST", "what it hears, comma-separated (default all)"),
            .value("--lang", "LANG", .choice(["ja", "en"]), default: "ja", "the messages' language"),
            .value("--quiet-hours", "HH:MM-HH:MM", "hold all but urgent messages in these hours, Japan time"),
            .flag(
                "--allow-private", environment: "KURONEKO_ALLOW_PRIVATE_WEBHOOKS",
                "accept a URL that leads to a loopback or private address (the server must allow them too)"),
            database,
        ],
        operands: .choices(["add", "list", "remove"]),
        examples: [
            ("kuroneko channels add --kind ntfy --url https://ntfy.sh/my-parcels --lang en", "phone pushes by ntfy"),
            (
                "KURONEKO_LINE_ACCESS_TOKEN=… kuroneko channels add --kind line --to broadcast",
                "every friend of your LINE Official Account"
            ),
        ])

    static let notifyTest = CommandSpec(
        name: "notify-test", synopsis: "[options] ID", summary: "send a sample message to a channel now",
        description: ["Sends a sample announcement to the channel and says what its service answered."],
        options: [
            database, caFile, lineOrigin,
            .flag("--allow-private", "let it go to loopback and private addresses (a receiver on this machine)"),
        ] + SMTPOptions.specs,
        operands: .none, examples: [("kuroneko notify-test 1", "is channel 1 reachable?")])

    static let db = CommandSpec(
        name: "db", synopsis: "status | backup FILE", summary: "the watch list's database: what it holds, a backup",
        description: [
            "`db status` prints the engine, the schema version and how many watches, shipments, changes, pending "
                + "webhook deliveries and active keys the database holds. `db backup FILE` writes a copy of an "
                + "SQLite watch list to a new FILE with SQLite's online backup, safe while `kuroneko serve` uses "
                + "it, and checks the copy (PRAGMA integrity_check). A PostgreSQL watch list is backed up with "
                + "pg_dump."
        ],
        options: [database],
        operands: .choices(["status", "backup"]),
        examples: [
            ("kuroneko db status", "what the default watch list holds"),
            (
                "kuroneko db backup /var/backups/kuroneko-$(date +%F).sqlite --db /var/lib/kuroneko/kuroneko.sqlite",
                "a copy of the service's database while it runs"
            ),
        ])

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
        ] + MailboxOptions.options + [
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
            lineOrigin,
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

    static let completion = CommandSpec(
        name: "completion", synopsis: "bash|zsh|fish", summary: "print a shell completion script",
        description: [
            "Prints a script that completes commands, options and option values such as --lang ja|en."
        ],
        options: [], operands: .shell,
        examples: [
            ("source <(kuroneko completion bash)", "in ~/.bashrc"),
            ("kuroneko completion zsh > \"${fpath[1]}/_kuroneko\"", "once, for zsh"),
            ("kuroneko completion fish > ~/.config/fish/completions/kuroneko.fish", "once, for fish"),
        ])

    static let help = CommandSpec(
        name: "help", synopsis: "[COMMAND] [--man]", summary: "show help for a command, or the man page",
        description: ["Shows a command's help; with --man, prints the manual page in roff."],
        options: [.flag("--man", "print the manual page (roff) instead")],
        operands: .command,
        examples: [("kuroneko help --man | man -l -", "read the manual")])

    private static let year = 31_536_000.0

    /// `15`, `0.5`: a duration as a number of seconds, as it would be typed.
    private static func seconds(_ duration: Duration) -> String {
        number(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        number((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
