import ArgumentParser
import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoCrypto

/// `kuroneko add NUMBER...`: watch numbers, check each once, and show them.
struct AddCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "add", usage: "[options] NUMBER...", summary: "watch numbers: check each once and keep it",
        description: [
            "Adds the numbers to the local watch list (no server needed; a running server may use the same file), "
                + "looks each up once, and shows its status. Adding a number already watched changes nothing but "
                + "the parts of its record named (--reference, --recipient, --telephone, --shipped-on, --note, "
                + "--handled): so a note or a handled mark is set on a parcel already there."
        ],
        examples: [
            ("kuroneko add 3277-5445-9830 --label shoes", "watch one parcel, named"),
            ("kuroneko add 3277-5445-9830 --note 再配達依頼済み --handled", "a note and the handled mark on a parcel"),
        ])

    @Option(help: .about("a name for the parcels added (at most 200 characters)", value: "TEXT")) var label: String?
    @Option(help: .about("the shop's order or management number (kept in the parcel record)", value: "TEXT"))
    var reference: String?
    @Option(help: .about("the recipient's name", value: "NAME")) var recipient: String?
    @Option(help: .about("the recipient's telephone (searched by its digits)", value: "TEL")) var telephone: String?
    @Option(help: .about("the day it was shipped, YYYY-MM-DD", value: "DATE")) var shippedOn: String?
    @Option(help: .about("a note (an empty one clears it)", value: "TEXT")) var note: String?
    @Flag(help: "mark as dealt with (対応済み)") var handled = false
    @Flag(help: "take the handled mark off") var notHandled = false
    @Option(help: .carrierLookup) var carrier: Carrier?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @OptionGroup var client: ClientFlags
    @Flag(help: .noColor) var noColor = false
    @Argument(help: .about("the tracking numbers to watch", value: "NUMBER")) var numbers: [String] = []

    var listName: String? { list.list }
    var clientFlags: ClientFlags? { client }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let numbers = try session.numbers(self.numbers, carrier: carrier, usage: "[options] NUMBER...")
        var label: String?
        if let text = self.label {
            do {
                label = try WatchLabel.validated(text)
            } catch {
                throw CommandFailure.usage("add: --\(error)")
            }
        }
        let record = try recordChange()
        var created: [String] = []
        for number in numbers {
            do {
                let added = try await store.add(
                    number, carrier: carrier, label: label, record: record, owner: owner,
                    webhook: nil, now: Date())
                if added.created { created.append(number.digits) }
            } catch let error as WatchStoreError {
                if !created.isEmpty { await session.audit("added", AuditDetail.numbers(created), owner: owner) }
                throw CommandFailure.usage("add: \(error)")
            }
        }
        if !created.isEmpty { await session.audit("added", AuditDetail.numbers(created), owner: owner) }
        // Progress on a terminal while the numbers are looked up (ten a request), then one line of what was done.
        let failed = try await session.check(
            numbers,
            carriers: carrier.map { named in Dictionary(numbers.map { ($0, named) }) { first, _ in first } } ?? [:],
            quiet: false, printChanges: false)
        let distinct = Set(numbers).count
        terminal.printError(
            "kuroneko: added \(created.count) of \(distinct) (\(distinct - created.count) already watched), "
                + "\(distinct - failed) checked" + (failed > 0 ? ", \(failed) could not be checked" : ""))
        var watches: [Watch] = []
        for number in numbers {
            if let watch = try await store.watch(number, owner: owner) { watches.append(watch) }
        }
        terminal.print(
            WatchTable(language: .japanese, colored: terminal.usesColor(unlessTurnedOff: noColor))
                .text(for: watches))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}

extension AddCommand {
    /// The parts of the record the options name, checked as the API checks them; `nil` when none is named.
    func recordChange() throws(CommandFailure) -> ParcelRecordChange? {
        var parts: [String: Any] = [:]
        if let text = reference { parts["reference"] = text }
        if let text = shippedOn { parts["shipped_on"] = text }
        if let text = note { parts["note"] = text }
        var recipient: [String: Any] = [:]
        if let text = self.recipient { recipient["name"] = text }
        if let text = telephone { recipient["telephone"] = text }
        if !recipient.isEmpty { parts["recipient"] = recipient }
        guard !(handled && notHandled) else { throw .usage("add: --handled and --not-handled: give one") }
        if handled || notHandled { parts["handled"] = handled }
        guard !parts.isEmpty else { return nil }
        do {
            return try ParcelRecordChange(json: parts)
        } catch {
            throw .usage("add: \(error)")
        }
    }
}

/// `kuroneko list`: the watch list, where each parcel is.
struct ListCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "list", usage: "[options]", summary: "the watch list: where each parcel is",
        description: [
            "Shows the watched parcels still on their way (with --all, the finished ones too): number, label, "
                + "status, last event, scheduled delivery and when it was last checked. --status, --today, "
                + "--tomorrow, --carrier and --search narrow it. The table is measured in terminal columns (wide "
                + "characters take two) and cut with … to fit the terminal's width (or COLUMNS)."
        ],
        examples: [
            ("kuroneko list --all --lang en", "every watched parcel, English labels"),
            ("kuroneko list --today", "what is expected today"),
            ("kuroneko list --status problem --csv --excel > 要確認.csv", "every parcel that needs someone, for Excel"),
        ])

    @Flag(help: "include delivered, returned and invalid parcels") var all = false
    @Option(
        help: .about(
            "only these status codes or families (pending, accepted, transit, out, delivered, problem), "
                + "comma-separated; finished parcels included", value: "LIST"))
    var status: String?
    @Flag(help: "only parcels still on their way whose forecast is today (Japan time)") var today = false
    @Flag(help: "only parcels with no new event for longer than their status allows") var stalled = false
    @Flag(help: "only parcels still on their way past the end of their planned delivery") var overdue = false
    @Flag(help: "only parcels still on their way whose forecast is tomorrow") var tomorrow = false
    @Option(help: .about("only parcels at this carrier", value: "CARRIER")) var carrier: Carrier?
    @Option(
        help: .about(
            "only parcels whose label, reference or recipient holds TEXT, or whose number or telephone holds its digits",
            value: "TEXT"))
    var search: String?
    @Flag(help: "print JSON") var json = false
    @Flag(
        help: "print CSV: number, label, active, checked_at, the tracking columns (in --lang) and the record's columns")
    var csv = false
    @Flag(help: .excel) var excel = false
    @Option(help: .about("language of the status labels", value: "LANG")) var lang: Language = .japanese
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Flag(help: .noColor) var noColor = false

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let query = try self.query()
        let now = Date()
        let language = lang
        if csv {
            // The server's sheet, read and printed a page at a time; with --excel a BOM, CRLF and numbers kept whole.
                        let end = excel ? "\r\n" : "\n"
            if excel { terminal.write(Data([0xEF, 0xBB, 0xBF])) }
            // The sheet columns the records keep, one column each, as the server's download writes them.
            let fields = try await store.recordFieldNames(
                owner: owner, matching: query, now: now, limit: ParcelRecordLimits.fields)
            let english = language == .english
            terminal.write(Data((WatchListExport.header(english: english, fieldNames: fields) + end).utf8))
            var cursor: Int64?
            while true {
                let page = try await store.watches(owner: owner, matching: query, after: cursor, limit: 1_000, now: now)
                var text = ""
                for watch in page {
                    text += WatchListExport.row(watch, english: english, excel: excel, fieldNames: fields) + end
                }
                terminal.write(Data(text.utf8))
                guard page.count == 1_000, let last = page.last else { return }
                cursor = last.id
            }
        }
        let watches = try await store.watches(
            owner: owner, matching: query, after: nil, limit: store.maxWatchesPerOwner, now: now)
        if json {
            let objects = try watches.map(WatchListSession.object)
            let data = try JSONSerialization.data(
                withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return terminal.print(String(decoding: data, as: UTF8.self))
        }
        let colored = terminal.usesColor(unlessTurnedOff: noColor)
        terminal.print(
            WatchTable(language: language, colored: colored, columns: terminal.columns).text(for: watches))
    }

    /// `--all`, `--status CODE|FAMILY,…`, `--carrier`, `--today`, `--tomorrow`, `--search TEXT`.
    func query() throws(CommandFailure) -> WatchQuery {
        var query = WatchQuery()
        let narrowed = status != nil || today || tomorrow
        // Asked for by status or day, finished parcels count too; otherwise the list is what is on its way.
        query.state = all || narrowed ? .all : .active
        query.stalled = stalled
        query.overdue = overdue
        if let text = status {
            for name in text.split(separator: ",").map(String.init) {
                if let code = StatusCode(rawValue: name) {
                    query.codes = (query.codes ?? []).union([code])
                } else if let family = WatchFamily(rawValue: name) {
                    query.families = (query.families ?? []).union([family])
                } else {
                    throw .usage(
                        "list: --status \"\(name.prefix(40))\" is neither a status code (in_transit, delivered, …) nor a "
                            + "family (" + WatchFamily.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
            }
            // Codes and families together: either kind matches.
            if let codes = query.codes, let families = query.families {
                query.codes = nil
                query.families = families
                query.extraCodes = codes
            }
        }
        query.carrier = carrier
        if today { query.forecast = .today }
        if tomorrow { query.forecast = .tomorrow }
        if let text = search {
            guard text.count <= 200 else { throw .usage("list: --search is longer than 200 characters") }
            query.text = text.isEmpty ? nil : text
        }
        return query
    }
}

/// `kuroneko show NUMBER`: one watched parcel, its timeline and its changes.
struct ShowCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "show", usage: "[options] NUMBER", summary: "one watched parcel: its timeline and changes",
        description: ["Shows a watched parcel's full timeline and the log of its status changes."],
        examples: [("kuroneko show 3277-5445-9830", "the timeline")])

    @Flag(help: "print JSON") var json = false
    @Option(help: .about("language of the status labels", value: "LANG")) var lang: Language = .japanese
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Argument(help: .about("the watched parcel's number", value: "NUMBER")) var numbers: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let numbers = try session.numbers(self.numbers, usage: "[options] NUMBER")
        guard numbers.count == 1, let number = numbers.first else {
            throw CommandFailure.usage("show: give one NUMBER")
        }
        guard let watch = try await store.watch(number, owner: owner) else {
            throw CommandFailure.usage("show: \(number.formatted) is not on the watch list; add it with 'kuroneko add'")
        }
        let changes = try await store.changes(of: number, owner: owner) ?? []
        if json {
            var object = try WatchListSession.object(watch)
            object["changes"] = changes.map { change in
                [
                    "id": change.id, "created_at": JapanDateTime(change.createdAt).iso8601,
                    "from": WatchListSession.label(ofStatus: change.previous),
                ]
            }
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return terminal.print(String(decoding: data, as: UTF8.self))
        }
        let english = lang == .english
        var lines = ["\(number.formatted)" + (watch.label.map { "  \($0)" } ?? "")]
        lines += RecordLines.lines(watch.record, english: english)
        if let since = watch.pageRefusedAt {
            let when = JapanDateTime(since).iso8601
            lines.append(
                english
                    ? "the carrier's page could not be read since \(when) (its layout may have changed): the last answer read"
                    : "\(when) から運送会社のページを読めません（ページの形が変わった可能性があります）。最後に読めた内容です")
        }
        if let shipment = watch.latest?.shipment {
            let status = english ? (shipment.status.labelEnglish ?? shipment.status.label) : shipment.status.label
            lines.append("\(status) (\(shipment.status.code))" + (shipment.product.map { "  \($0)" } ?? ""))
            if let summary = shipment.status.summary { lines.append("  \(summary)") }
            if let shipped = shipment.shipDate { lines.append((english ? "shipped " : "出荷日 ") + shipped.iso8601) }
            for event in shipment.events {
                let label = english ? (event.labelEnglish ?? event.label) : event.label
                lines.append(
                    "  \(event.at?.iso8601 ?? event.dateText ?? "-")  \(label)  \(event.place ?? "")"
                        + (event.detail.map { "  (\($0))" } ?? ""))
            }
            if shipment.asksToCall, let offices = shipment.offices {
                lines.append(english ? "ask:" : "お問い合わせ先:")
                for office in offices {
                    lines.append("  \(office.role)  \(office.name)  \(office.telephone ?? "")")
                }
            }
        } else {
            lines.append("not checked yet")
        }
        lines.append("changes:" + (changes.isEmpty ? " none yet" : ""))
        for change in changes {
            lines.append(
                "  \(JapanDateTime(change.createdAt).iso8601)  from \(WatchListSession.label(ofStatus: change.previous))"
            )
        }
        terminal.print(lines.joined(separator: "\n"))
    }
}

/// `kuroneko remove NUMBER...`: stop watching numbers.
struct RemoveCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "remove", usage: "[options] NUMBER... | --finished [--older-than DURATION]",
        summary: "stop watching numbers",
        description: [
            "Removes the numbers from the watch list, with their history and pending webhooks; with --finished, "
                + "every finished parcel (delivered, returned, or a number found to be wrong), or with --older-than "
                + "only those last checked longer ago than that."
        ],
        examples: [
            ("kuroneko remove 3277-5445-9830", "forget one parcel"),
            ("kuroneko remove --finished --older-than 30d", "clear what was delivered over a month ago"),
        ])

    @Flag(help: "remove every finished parcel") var finished = false
    @Option(help: .about("with --finished: only those finished longer ago (e.g. 30d, 12h)", value: "DURATION"))
    var olderThan: String?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Argument(help: .about("the numbers to stop watching", value: "NUMBER")) var numbers: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        if finished {
            guard numbers.isEmpty else {
                throw CommandFailure.usage("remove: --finished removes every finished parcel; give no numbers with it")
            }
            var before: Date?
            if let text = olderThan {
                let olderThan = try WatchListSession.duration(
                    text, option: "--older-than", command: "remove", maximum: 86_400 * 3_650)
                before = Date().addingTimeInterval(-(olderThan / .seconds(1)))
            }
            let removed = try await store.removeFinished(owner: owner, checkedBefore: before)
            if !removed.isEmpty {
                await session.audit("removed", AuditDetail.numbers(removed, what: "finished parcels"), owner: owner)
            }
            return terminal.print(
                "removed \(removed.count) finished \(removed.count == 1 ? "parcel" : "parcels") from the watch list")
        }
        if olderThan != nil {
            throw CommandFailure.usage("remove: --older-than goes with --finished")
        }
        var removed: [String] = []
        for number in try session.numbers(numbers, usage: "[options] NUMBER... | --finished [--older-than DURATION]") {
            if try await store.remove(number, owner: owner) {
                removed.append(number.digits)
            } else {
                terminal.printError("kuroneko: \(number.formatted) was not on the watch list")
            }
        }
        if !removed.isEmpty { await session.audit("removed", AuditDetail.numbers(removed), owner: owner) }
        terminal.print("removed \(removed.count) \(removed.count == 1 ? "parcel" : "parcels") from the watch list")
    }
}

/// `kuroneko refresh`: check every active watch now.
struct RefreshCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "refresh", usage: "[options]", summary: "check every active watch now",
        description: [
            "Looks up every active watch now, ten per request to Yamato, with progress on a terminal, and prints "
                + "each status change it finds."
        ],
        examples: [("kuroneko refresh", "check everything once")])

    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @OptionGroup var client: ClientFlags
    @Flag(name: .shortAndLong, help: .quiet) var quiet = false

    var listName: String? { list.list }
    var clientFlags: ClientFlags? { client }

    /// Where each watch that knows its carrier is followed.
    static func carriers(of watches: [Watch]) -> [TrackingNumber: Carrier] {
        Dictionary(watches.compactMap { watch in watch.carrier.map { (watch.number, $0) } }) { first, _ in first }
    }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let watches = try await store.watches(owner: owner, filter: .active, after: nil, limit: store.maxWatchesPerOwner)
        guard !watches.isEmpty else { return terminal.printError("kuroneko: no active watches to refresh") }
        let failed = try await session.check(watches.map(\.number), carriers: Self.carriers(of: watches), quiet: quiet)
        terminal.print(
            "checked \(watches.count - failed) of \(watches.count) active \(watches.count == 1 ? "watch" : "watches")"
                + (failed > 0 ? "; \(failed) could not be checked" : ""))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}

/// `kuroneko watch`: keep checking until every parcel is finished.
struct WatchCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "watch", usage: "[options]", summary: "keep checking until every parcel is finished",
        description: [
            "Checks every active watch, prints each change as it happens, waits, and checks again, until no parcel "
                + "is left on its way. With --exec, runs the command (through /bin/sh) once per change, with the "
                + "change as JSON on its standard input (the webhook body)."
        ],
        examples: [("kuroneko watch --interval 10m --exec 'cat >> changes.jsonl'", "every change, kept as JSON lines")])

    @Option(help: .about("between rounds: seconds, or with s, m or h (default 5m)", value: "DURATION"))
    var interval: String?
    @Option(help: .about("run this for every change, the change as JSON on standard input", value: "COMMAND"))
    var exec: String?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @OptionGroup var client: ClientFlags

    var listName: String? { list.list }
    var clientFlags: ClientFlags? { client }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let interval = try WatchListSession.duration(self.interval ?? "5m")
        let command = exec
        while true {
            let active = try await store.watches(
                owner: owner, filter: .active, after: nil, limit: store.maxWatchesPerOwner)
            guard !active.isEmpty else {
                return terminal.printError("kuroneko: every watched parcel is finished")
            }
            _ = try await session.check(
                active.map(\.number), carriers: RefreshCommand.carriers(of: active), quiet: false, exec: command)
            let left = try await store.watches(owner: owner, filter: .active, after: nil, limit: 1)
            if left.isEmpty { return terminal.printError("kuroneko: every watched parcel is finished") }
            try await Task.sleep(for: interval)
        }
    }
}

/// `kuroneko keys create|list|revoke|open`: the API keys of `kuroneko serve`.
struct KeysCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "keys", usage: "create --name NAME | list | revoke NAME | open",
        summary: "API keys for kuroneko serve",
        description: [
            "Creates, lists and revokes the keys `kuroneko serve` asks for once any exists. A new key and its "
                + "read-only calendar token are printed once; only their hashes are stored. Once a key has "
                + "existed, revoking the last one leaves the API closed to everyone; `keys open` opens it to "
                + "everyone without a key (kept in the database) until a key is created again. A key made without "
                + "--list is a list of its own (its parcels apart from everyone else's; the first account's admins "
                + "are its admins too); with --list it acts on that list with --role."
        ],
        examples: [
            ("kuroneko keys create --name shop", "a key for the shop's system"),
            ("kuroneko keys revoke shop", "revoke it"),
            ("kuroneko keys create --name packing --list local --role staff", "a staff key for today's list"),
        ])

    @Option(help: .about("the new key's name", value: "NAME")) var name: String?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Option(help: .about("with --list: what the key may do there (default admin)", value: "ROLE")) var role: ListRole?
    @Argument(
        help: .about("create, list, revoke or open, and the key's name", value: "ACTION"),
        completion: .list(["create", "list", "revoke", "open"]))
    var operands: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let action = operands.first ?? "list"
        switch action {
        case "create":
            guard let name, !name.isEmpty, name.count <= 100 else {
                throw CommandFailure.usage("keys: create needs --name NAME (1 to 100 characters)")
            }
            let key = Secrets.random(prefix: "kn_")
            let calendar = Secrets.random(bytes: 16, prefix: "cal_")
            let forList = list.list != nil
            if role != nil, !forList {
                throw CommandFailure.usage("keys: --role is what the key may do in the list --list names; add --list")
            }
            do {
                if forList {
                    _ = try await store.createKey(
                        name: name, keyHash: Secrets.sha256(key), calendarHash: Secrets.sha256(calendar), now: Date(),
                        list: owner.id, role: role ?? .admin, madeBy: nil)
                } else {
                    _ = try await store.createKey(
                        name: name, keyHash: Secrets.sha256(key), calendarHash: Secrets.sha256(calendar), now: Date())
                }
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("keys: \(error)")
            }
            await session.audit("key_made", name, owner: owner)
            terminal.print(
                "key \(name): \(key)\ncalendar token: \(calendar)\n(shown once; only their hashes are stored)")
        case "list":
            for key in try await store.keys() {
                let state = key.revokedAt.map { "revoked \(JapanDateTime($0).iso8601)" } ?? "active"
                let list = key.listID.map { "list \($0) as \(key.role?.rawValue ?? "viewer")" } ?? "its own list key:\(key.id)"
                terminal.print("\(key.id)  \(key.name)  created \(JapanDateTime(key.createdAt).iso8601)  \(state)  \(list)")
            }
        case "revoke":
            guard operands.count == 2 else {
                throw CommandFailure.usage("keys: usage: kuroneko keys revoke NAME")
            }
            guard try await store.revokeKey(operands[1], now: Date()) else {
                throw CommandFailure.usage("keys: no active key named \"\(operands[1])\"")
            }
            await session.audit("key_revoked", operands[1], owner: owner)
            if try await store.keys().allSatisfy({ $0.revokedAt != nil }) {
                terminal.print(
                    "revoked \(operands[1]), the last active key: the API is now closed to everyone until a "
                        + "key is created (kuroneko keys create --name NAME) or it is opened without keys (kuroneko keys open)"
                )
            } else {
                terminal.print("revoked \(operands[1])")
            }
        case "open":
            let active = try await store.keys().filter { $0.revokedAt == nil }
            guard active.isEmpty else {
                throw CommandFailure.usage(
                    "keys: \(active.count) key(s) are active; revoke them first (kuroneko keys revoke NAME) to open the API"
                )
            }
            try await store.openWithoutKeys(at: Date())
            await session.audit("opened", "the API, to everyone without a key", owner: owner)
            terminal.print(
                "the API is open to everyone without a key, until a key is created (kuroneko keys create --name NAME)")
        default:
            let hint =
                Suggestion.closest(to: action, among: ["create", "list", "revoke", "open"]).map {
                    "did you mean '\($0)'? "
                }
                ?? ""
            throw CommandFailure.usage("keys: unknown action '\(action)'; \(hint)use create, list, revoke or open")
        }
    }
}
