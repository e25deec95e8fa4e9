import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoSheets
import KuronekoStore
import KuronekoSimulator

/// Every command of the tool, each described once (its options with their kinds, ranges and defaults).
enum CommandCatalog {
    /// The commands, in the order help lists them; each a type that runs from its parsed arguments.
    static let commands: [any Command.Type] = [
        TrackCommand.self, ParseCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self,
        RemoveCommand.self, RefreshCommand.self, WatchCommand.self, ImportCommand.self, IntakeCommand.self, KeysCommand.self,
        ChannelsCommand.self, NotifyTestCommand.self, PagesCommand.self, NoticesCommand.self, UsersCommand.self, ListsCommand.self, DatabaseCommand.self, ServeCommand.self, SimulateCommand.self,
        CompletionCommand.self, HelpCommand.self,
    ]

    static let all = commands.map { $0.spec }

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    /// The library's own defaults, which the options' defaults are read from rather than written again.
    static let clientDefaults = TrackingClient.Configuration()
    static let serverDefaults = Server.Configuration()

    static let endpoint = OptionSpec.value(
        "--endpoint", "URL", .endpoints, environment: "KURONEKO_ENDPOINT",
        "where the carriers' sites are: a URL is Yamato's form (default "
            + "\(clientDefaults.endpoint.absoluteString)); CARRIER=ORIGIN puts that carrier's real paths under "
            + "ORIGIN (sagawa=http://127.0.0.1:8081); several comma-separated or the option again")
    static let excelFlag = OptionSpec.flag(
        "--excel", "for Excel: a UTF-8 BOM, CRLF line ends, and every long number written so Excel keeps it whole")

    static let lineOrigin = OptionSpec.value(
        "--line-origin", "URL", .url, environment: "KURONEKO_LINE_ORIGIN",
        "where LINE's Messaging API is (a stand-in for tests); the same as --channel-setting line.origin=URL")
    static let channelSetting = OptionSpec.value(
        "--channel-setting", "KIND.NAME=VALUE", environment: "KURONEKO_CHANNEL_SETTING",
        "a channel kind's server setting ("
            + ChannelKindRegistry.standard.kinds.flatMap { kind in
                kind.serverSettings.map { "\(kind.name).\($0.name): \($0.help)" }
            }.joined(separator: "; ") + "); the option again for more")

    static let caFile = OptionSpec.value(
        "--ca-file", "FILE", .certificates, environment: "KURONEKO_CA_FILE",
        "a PEM file of the certificate authorities to trust for https, instead of the system's (a private "
            + "authority, or tests)")
    static let carrier = OptionSpec.value(
        "--carrier", "CARRIER", .choice(Carrier.allCases.map(\.rawValue)),
        "look every number up at this carrier; without it each number's carrier is found (" + CarrierRegistry.formsInWords
            + ")")
    static let timeout = OptionSpec.value(
        "--timeout", "SECONDS", .seconds(0.1...600), default: seconds(clientDefaults.requestTimeout),
        environment: "KURONEKO_TIMEOUT", "per request to Yamato")
    static let minInterval = OptionSpec.value(
        "--min-interval", "SECONDS", .seconds(0...60), default: seconds(clientDefaults.minimumRequestInterval),
        environment: "KURONEKO_MIN_INTERVAL",
        "between the starts of requests to each carrier (lower it only for a simulator of your own)")
    static let language = OptionSpec.value(
        "--lang", "LANG", .choice(["ja", "en"]), default: "ja", "language of the status labels")
    static let output: [OptionSpec] = [
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

    static let database = OptionSpec.value(
        "--db", "PATH", environment: "KURONEKO_DB",
        "the watch list: an SQLite file (default $XDG_DATA_HOME/kuroneko/kuroneko.sqlite) or a postgres:// URL")

    static let listChoice = OptionSpec.value(
        "--list", "LIST",
        "the list to act on, by name or id (kuroneko lists shows them); today's list when left out")

    static let add = CommandSpec(
        name: "add", synopsis: "[options] NUMBER...", summary: "watch numbers: check each once and keep it",
        description: [
            "Adds the numbers to the local watch list (no server needed; a running server may use the same file), "
                + "looks each up once, and shows its status. Adding a number already watched changes nothing but "
                + "the parts of its record named (--reference, --recipient, --telephone, --shipped-on, --note, "
                + "--handled): so a note or a handled mark is set on a parcel already there."
        ],
        options: [
            .value("--label", "TEXT", "a name for the parcels added (at most 200 characters)"),
            .value("--reference", "TEXT", "the shop's order or management number (kept in the parcel record)"),
            .value("--recipient", "NAME", "the recipient's name"),
            .value("--telephone", "TEL", "the recipient's telephone (searched by its digits)"),
            .value("--shipped-on", "DATE", "the day it was shipped, YYYY-MM-DD"),
            .value("--note", "TEXT", "a note (an empty one clears it)"),
            .flag("--handled", "mark as dealt with (対応済み)"), .flag("--not-handled", "take the handled mark off"),
            carrier, database, listChoice,
            endpoint, caFile,
            timeout, minInterval, .flag("--no-color", "never colour the table"),
        ],
        operands: .numbers,
        examples: [
            ("kuroneko add 3277-5445-9830 --label shoes", "watch one parcel, named"),
            ("kuroneko add 3277-5445-9830 --note 再配達依頼済み --handled", "a note and the handled mark on a parcel"),
        ])

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
            .flag("--overdue", "only parcels still on their way past the end of their planned delivery"),
            .flag("--tomorrow", "only parcels still on their way whose forecast is tomorrow"), carrier,
            .value(
                "--search", "TEXT",
                "only parcels whose label, reference or recipient holds TEXT, or whose number or telephone holds its digits"),
            .flag("--json", "print JSON"),
            .flag(
                "--csv",
                "print CSV: number, label, active, checked_at, the tracking columns (in --lang) and the record's columns"),
            excelFlag,
            language, database, listChoice,
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
        options: [.flag("--json", "print JSON"), language, database, listChoice], operands: .numbers,
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
            database, listChoice,
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
            database, listChoice, endpoint, caFile, timeout, minInterval,
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
            .value("--exec", "COMMAND", "run this for every change, the change as JSON on standard input"), database, listChoice,
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
                + "With --watch each parcel keeps its record: the columns whose header says what they are (お客様管理番号 "
                + "or 注文番号, お届け先名, 電話番号, メールアドレス, 郵便番号, 都道府県, 出荷日, 備考, as B2クラウド, e飛伝, "
                + "ゆうプリR and Click Post name them, or in English), and the other named columns as they came (at most "
                + "30); the columns taken are said first. A known export (B2クラウド, e飛伝, ゆうプリR, 楽天 RMS, Amazon's "
                + "出荷通知, Yahoo!ショッピング, Qoo10) is recognised by its header, found in the first 10 rows, and named; its columns and its "
                + "label tool's carrier are read as it writes them, tab-separated text too; an export without numbers yet "
                + "is refused, naming the one to use. A number on rows of different recipients is refused and its rows "
                + "named; one recipient's rows are one parcel with their references listed. A number no carrier knows yet is watched with its carrier "
                + "unknown, asked of each carrier its form allows until one knows it; a carrier column sets it. "
                + "Progress is shown on a terminal; a summary line (rows, tracked by status, skipped, watched) ends "
                + "the run.",
        ],
        options: [
            .value(
                "--column", "N|NAME|ROLE=NAME",
                "the numbers' column (its number from 1, or its header's name; by default the one whose header "
                    + "names tracking numbers, else the first); with --watch, ROLE=NAME names the column of a part "
                    + "of each parcel's record (reference, name, telephone, email, postcode, prefecture, address, shipped_on, "
                    + "note, label, carrier); repeatable"),
            .value("--carrier-column", "N|NAME", "the column naming each row's carrier (a code, a name or ゆうパケット)"),
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
            .value("--label-column", "N|NAME", "with --watch: the column whose text labels each watch"), database, listChoice,
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
                + "everyone without a key (kept in the database) until a key is created again. A key made without "
                + "--list is a list of its own (its parcels apart from everyone else's; the first account's admins "
                + "are its admins too); with --list it acts on that list with --role."
        ],
        options: [
            .value("--name", "NAME", "the new key's name"), database, listChoice,
            .value("--role", "ROLE", .choice(["admin", "staff", "viewer"]), "with --list: what the key may do there (default admin)"),
        ],
        operands: .choices(["create", "list", "revoke", "open"]),
        examples: [
            ("kuroneko keys create --name shop", "a key for the shop's system"),
            ("kuroneko keys revoke shop", "revoke it"),
            ("kuroneko keys create --name packing --list local --role staff", "a staff key for today's list"),
        ])

    static let users = CommandSpec(
        name: "users", synopsis: "add NAME | list",
        summary: "the people who sign in to the web app",
        description: [
            "add makes an account; its password is one line on standard input (never the command line), at least 8 "
                + "characters, stored as a scrypt hash. The first account made is the admin of every list that exists "
                + "(today's, every parcel, channel and mailbox in it, and each command-line key's); others join through "
                + "an admin's invitation (POST /v1/invitations) or with --list and --role here. Once an account exists, "
                + "the API lets nobody in without signing in or a key. list shows every list's members."
        ],
        options: [
            .value("--display-name", "NAME", "the name shown to the list's other members"), database, listChoice,
            .value("--role", "ROLE", .choice(["admin", "staff", "viewer"]), "with --list: the new member's role (default staff)"),
        ],
        operands: .choices(["add", "list"]),
        examples: [
            ("printf '%s\\n' \"$PASSWORD\" | kuroneko users add mama", "the first account: the list's admin"),
            ("kuroneko users list", "who signs in"),
            ("printf '%s\\n' \"$PASSWORD\" | kuroneko users add kenta --list shop --role viewer", "a viewer of the list shop"),
        ])

    static let lists = CommandSpec(
        name: "lists", synopsis: "list | create NAME",
        summary: "the lists people share: today's, each command-line key's, and more",
        description: [
            "list shows every list: its id, name, parcels and members. create NAME makes another list (a second shop, "
                + "a relative's parcels), with --admin USER as its admin; the other commands act on it with --list."
        ],
        options: [database, .value("--admin", "USER", "with create: the account that becomes the new list's admin")],
        operands: .choices(["list", "create"]),
        examples: [
            ("kuroneko lists", "the lists and who is in each"),
            ("kuroneko lists create 実家 --admin mama", "a list for the parents' parcels"),
            ("kuroneko add 4912-3456-7890 --list 実家", "a parcel on it"),
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
            .flag("--watch", "add the parcels to the local watch list and check each once"), database, listChoice, endpoint,
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

    static let notices = CommandSpec(
        name: "notices", synopsis: "settings [FILE] | preview NUMBER --milestone MILESTONE",
        summary: "the shop's notices to its customers: settings, and a parcel's notice as it is sent",
        description: [
            "kuroneko serve (with --smtp-url, --smtp-from and --public-url) tells each parcel's recipient, by the "
                + "e-mail of its record, at the milestones chosen: shipped, out_for_delivery, delivered, "
                + "missed_delivery, problem; each at most once, none for a parcel already delivered when added or news "
                + "over 7 days old. settings prints the local owner's settings as JSON; settings FILE sets them from "
                + "a JSON file (the same keys as PUT /v1/notices/settings). preview renders a watched parcel's notice "
                + "as the server does (the queued one as it is sent): give --smtp-from and --public-url as the server "
                + "has them for the same From and stop link."
        ],
        options: [
            database, listChoice,
            .value(
                "--milestone", "MILESTONE", .choice(CustomerMilestone.allCases.map(\.rawValue)),
                "the milestone to preview"),
            .value("--lang", "LANG", .choice(["ja", "en"]), "the notice's language (default: the settings')"),
            .value(
                "--mail-charset", "CHARSET", .choice(MessageCharset.allCases.map(\.rawValue)),
                "the notice's character set (default: the settings')"),
            .flag("--raw", "print the whole message as it goes over SMTP"),
            .value("--smtp-from", "ADDRESS", "the address the server sends from"),
            .value("--public-url", "URL", .url, "the server's --public-url (the stop link)"),
        ],
        operands: .choices(["settings", "preview"]),
        examples: [
            ("kuroneko notices settings shop.json", "set the shop's name, address, contact and milestones"),
            ("kuroneko notices preview 4912-3456-7890 --milestone shipped", "the shipped notice of one parcel"),
        ])

    static let channels = channels(kinds: .standard)

    /// `kuroneko channels`, its flags made from the kinds' fields: `--url`, `--address`, `--access-token`, …
    static func channels(kinds: ChannelKindRegistry) -> CommandSpec {
        let typed = kinds.typed
        let fieldOptions = ChannelsCommand.fields(of: kinds).map { field, owners in
            OptionSpec.value(
                field.flag, field.name.uppercased(), environment: field.environment,
                "\(owners.joined(separator: ", ")): \(field.label.english)"
                    + (owners.count == 1 ? field.hint.map { " (\($0.english))" } ?? "" : ""))
        }
        return CommandSpec(
            name: "channels",
            synopsis: "add KIND-AND-FIELDS [NUMBER...] | list | remove ID | summary",
            summary: "where the local watch list's news is sent: "
                + typed.map(\.title.english).joined(separator: ", "),
            description: [
                "Adds, lists and removes the notification channels of the local owner (the one kuroneko serve uses "
                    + "without API keys). A channel hears every watched parcel, or only the NUMBERs given; --kinds "
                    + "chooses among changed, delivered, exception, arriving_soon, stalled, overdue, kept_reminder, "
                    + "morning_summary (today's parcels once a morning, at --summary-at, 07:30 by default: out for "
                    + "delivery, planned today, kept after a missed delivery with whom to call; heard only when named) and "
                    + "page_changed (the operator's news that a carrier's page is no longer understood or the mailbox "
                    + "cannot be read, and each read again: heard only when named). kuroneko serve sends them.",
                "Each kind's fields: " + ChannelsCommand.fieldSynopsis(kinds) + " (web_push channels are added by "
                    + "the web app).",
            ],
            options: [.value("--kind", "KIND", .choice(typed.map(\.name)), "the channel's kind")] + fieldOptions + [
                .value("--kinds", "LIST", "what it hears, comma-separated (default all)"),
                .value("--lang", "LANG", .choice(["ja", "en"]), default: "ja", "the messages' language"),
                .value("--quiet-hours", "HH:MM-HH:MM", "hold all but urgent messages in these hours, Japan time"),
                .value("--summary-at", "HH:MM", "when the morning summary is sent, Japan time (default 07:30)"),
                .flag(
                    "--allow-private", environment: "KURONEKO_ALLOW_PRIVATE_WEBHOOKS",
                    "accept a URL that leads to a loopback or private address (the server must allow them too)"),
                database, listChoice,
            ],
            operands: .choices(["add", "list", "remove", "summary"]),
            examples: [
                ("kuroneko channels add --kind ntfy --url https://ntfy.sh/my-parcels --lang en", "phone pushes by ntfy"),
                ("kuroneko channels summary", "what this morning's summary says (nothing is sent)"),
                (
                    "KURONEKO_LINE_ACCESS_TOKEN=… kuroneko channels add --kind line --to broadcast",
                    "every friend of your LINE Official Account"
                ),
            ])
    }

    static let notifyTest = CommandSpec(
        name: "notify-test", synopsis: "[options] ID", summary: "send a sample message to a channel now",
        description: ["Sends a sample announcement to the channel and says what its service answered."],
        options: [
            database, listChoice, caFile, lineOrigin, channelSetting,
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

    static let year = 31_536_000.0

    /// `15`, `0.5`: a duration as a number of seconds, as it would be typed.
    static func seconds(_ duration: Duration) -> String {
        number(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func milliseconds(_ duration: Duration) -> String {
        number((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
