import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore

/// `kuroneko add NUMBER...`: watch numbers, check each once, and show them.
struct AddCommand: ArgumentsCommand {
    static let spec = CommandCatalog.add
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let numbers = try session.numbers()
        var label: String?
        if let text = arguments.text(.label) {
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
                    number, carrier: try arguments.carrier(.carrier), label: label, record: record, owner: owner,
                    webhook: nil, now: Date())
                if added.created { created.append(number.digits) }
            } catch let error as WatchStoreError {
                if !created.isEmpty { await session.audit("added", AuditDetail.numbers(created), owner: owner) }
                throw CommandFailure.usage("add: \(error)")
            }
        }
        if !created.isEmpty { await session.audit("added", AuditDetail.numbers(created), owner: owner) }
        let carrier = try arguments.carrier(.carrier)
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
            WatchTable(language: .japanese, colored: terminal.usesColor(unlessTurnedOff: arguments.flag(.noColor)))
                .text(for: watches))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}

extension AddCommand {
    /// The parts of the record the options name, checked as the API checks them; `nil` when none is named.
    func recordChange() throws(CommandFailure) -> ParcelRecordChange? {
        var parts: [String: Any] = [:]
        if let text = arguments.text(.reference) { parts["reference"] = text }
        if let text = arguments.text(.shippedOn) { parts["shipped_on"] = text }
        if let text = arguments.text(.note) { parts["note"] = text }
        var recipient: [String: Any] = [:]
        if let text = arguments.text(.recipient) { recipient["name"] = text }
        if let text = arguments.text(.telephone) { recipient["telephone"] = text }
        if !recipient.isEmpty { parts["recipient"] = recipient }
        let handled = arguments.flag(named: "--handled")
        let notHandled = arguments.flag(named: "--not-handled")
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
struct ListCommand: ArgumentsCommand {
    static let spec = CommandCatalog.list
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let query = try Self.query(arguments)
        let now = Date()
        let language = try arguments.choice(.lang).flatMap(OutputOptions.Language.init(rawValue:)) ?? .japanese
        if arguments.flag(.csv) {
            // The server's sheet, read and printed a page at a time; with --excel a BOM, CRLF and numbers kept whole.
            let excel = arguments.flag(.excel)
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
        if arguments.flag(.json) {
            let objects = try watches.map(WatchListSession.object)
            let data = try JSONSerialization.data(
                withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return terminal.print(String(decoding: data, as: UTF8.self))
        }
        let colored = terminal.usesColor(unlessTurnedOff: arguments.flag(.noColor))
        terminal.print(
            WatchTable(language: language, colored: colored, columns: terminal.columns).text(for: watches))
    }

    /// `--all`, `--status CODE|FAMILY,…`, `--carrier`, `--today`, `--tomorrow`, `--search TEXT`.
    static func query(_ arguments: ArgumentList) throws(CommandFailure) -> WatchQuery {
        var query = WatchQuery()
        let narrowed = arguments.text(.status) != nil || arguments.flag(.today) || arguments.flag(.tomorrow)
        // Asked for by status or day, finished parcels count too; otherwise the list is what is on its way.
        query.state = arguments.flag(.all) || narrowed ? .all : .active
        query.stalled = arguments.flag(.stalled)
        query.overdue = arguments.flag(.overdue)
        if let text = arguments.text(.status) {
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
        query.carrier = try arguments.carrier(.carrier)
        if arguments.flag(.today) { query.forecast = .today }
        if arguments.flag(.tomorrow) { query.forecast = .tomorrow }
        if let text = arguments.text(.search) {
            guard text.count <= 200 else { throw .usage("list: --search is longer than 200 characters") }
            query.text = text.isEmpty ? nil : text
        }
        return query
    }
}

/// `kuroneko show NUMBER`: one watched parcel, its timeline and its changes.
struct ShowCommand: ArgumentsCommand {
    static let spec = CommandCatalog.show
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let numbers = try session.numbers()
        guard numbers.count == 1, let number = numbers.first else {
            throw CommandFailure.usage("show: give one NUMBER")
        }
        guard let watch = try await store.watch(number, owner: owner) else {
            throw CommandFailure.usage("show: \(number.formatted) is not on the watch list; add it with 'kuroneko add'")
        }
        let changes = try await store.changes(of: number, owner: owner) ?? []
        if arguments.flag(.json) {
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
        let english = try arguments.choice(.lang) == "en"
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
struct RemoveCommand: ArgumentsCommand {
    static let spec = CommandCatalog.remove
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        if arguments.flag(.finished) {
            guard arguments.operands.isEmpty else {
                throw CommandFailure.usage("remove: --finished removes every finished parcel; give no numbers with it")
            }
            var before: Date?
            if let text = arguments.text(.olderThan) {
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
        if arguments.text(.olderThan) != nil {
            throw CommandFailure.usage("remove: --older-than goes with --finished")
        }
        var removed: [String] = []
        for number in try session.numbers() {
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
struct RefreshCommand: ArgumentsCommand {
    static let spec = CommandCatalog.refresh
    let arguments: ArgumentList
    let terminal: Terminal

    /// Where each watch that knows its carrier is followed.
    static func carriers(of watches: [Watch]) -> [TrackingNumber: Carrier] {
        Dictionary(watches.compactMap { watch in watch.carrier.map { (watch.number, $0) } }) { first, _ in first }
    }

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let watches = try await store.watches(owner: owner, filter: .active, after: nil, limit: store.maxWatchesPerOwner)
        guard !watches.isEmpty else { return terminal.printError("kuroneko: no active watches to refresh") }
        let failed = try await session.check(watches.map(\.number), carriers: Self.carriers(of: watches), quiet: false)
        terminal.print(
            "checked \(watches.count - failed) of \(watches.count) active \(watches.count == 1 ? "watch" : "watches")"
                + (failed > 0 ? "; \(failed) could not be checked" : ""))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}

/// `kuroneko watch`: keep checking until every parcel is finished.
struct WatchCommand: ArgumentsCommand {
    static let spec = CommandCatalog.watch
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let interval = try WatchListSession.duration(arguments.text(.interval) ?? "5m")
        let command = arguments.text(.exec)
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
struct KeysCommand: ArgumentsCommand {
    static let spec = CommandCatalog.keys
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let session = try WatchListSession(arguments, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        let action = arguments.operands.first ?? "list"
        switch action {
        case "create":
            guard let name = arguments.text(.name), !name.isEmpty, name.count <= 100 else {
                throw CommandFailure.usage("keys: create needs --name NAME (1 to 100 characters)")
            }
            let key = Secrets.random(prefix: "kn_")
            let calendar = Secrets.random(bytes: 16, prefix: "cal_")
            let role = try arguments.choice(.role).flatMap(ListRole.init(rawValue:))
            let forList = arguments.text(.list) != nil
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
            guard arguments.operands.count == 2 else {
                throw CommandFailure.usage("keys: usage: kuroneko keys revoke NAME")
            }
            guard try await store.revokeKey(arguments.operands[1], now: Date()) else {
                throw CommandFailure.usage("keys: no active key named \"\(arguments.operands[1])\"")
            }
            await session.audit("key_revoked", arguments.operands[1], owner: owner)
            if try await store.keys().allSatisfy({ $0.revokedAt != nil }) {
                terminal.print(
                    "revoked \(arguments.operands[1]), the last active key: the API is now closed to everyone until a "
                        + "key is created (kuroneko keys create --name NAME) or it is opened without keys (kuroneko keys open)"
                )
            } else {
                terminal.print("revoked \(arguments.operands[1])")
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
