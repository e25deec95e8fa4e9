import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoProcess
import KuronekoServer
import KuronekoStore

/// `add`, `list`, `show`, `remove`, `refresh` and `keys`: the watch list on the local database, no server
/// needed (a server may use the same file at once).
struct WatchCommands {
    let spec: CommandSpec
    let arguments: ArgumentList
    let terminal: Terminal

    init(_ spec: CommandSpec, arguments: [String], terminal: Terminal) throws(CommandFailure) {
        self.spec = spec
        self.arguments = try ArgumentList(arguments, spec: spec, environment: terminal.environment)
        self.terminal = terminal
    }

    func run() async throws {
        let path = arguments.text("--db") ?? SQLiteWatchStore.defaultPath(environment: terminal.environment)
        let store: any WatchStore
        do {
            store = try DatabaseLocation.open(path) { [terminal] line in terminal.printError("kuroneko: \(line)") }
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure(spec.name, path, error))
        }
        switch spec.name {
        case "add": try await add(store)
        case "list": try list(store)
        case "show": try show(store)
        case "remove": try remove(store)
        case "refresh": try await refresh(store)
        case "watch": try await watch(store)
        default: try keys(store)
        }
    }

    private func numbers() throws(CommandFailure) -> [TrackingNumber] {
        let inputs = arguments.operands
        guard !inputs.isEmpty else {
            throw .usage("\(spec.name): no tracking number given; usage: kuroneko \(spec.name) \(spec.synopsis)")
        }
        return try NumberInput.validated(inputs, skipInvalid: false).numbers
    }

    /// The client the commands ask Yamato with: on a PostgreSQL watch list, within the budget the servers
    /// on that database share, so a `kuroneko refresh` beside them never adds to what Yamato gets.
    private func client(for store: any WatchStore) throws -> TrackingClient {
        var configuration = TrackingClient.Configuration()
        configuration.endpoint = try arguments.endpoint("--endpoint") ?? configuration.endpoint
        configuration.requestTimeout = try arguments.seconds("--timeout", in: 0.1...600) ?? configuration.requestTimeout
        guard let shared = store.shared else { return TrackingClient(configuration: configuration) }
        let clock = SystemClock()
        return TrackingClient(
            configuration: configuration, clock: clock,
            budget: try shared.upstreamBudget(
                maxConcurrent: configuration.maxConcurrentRequests,
                minimumInterval: configuration.minimumRequestInterval, clock: clock))
    }

    /// Looks the numbers up and records every answer; each failure one line on stderr. - Returns: failures.
    private func check(
        _ numbers: [TrackingNumber], store: any WatchStore, quiet: Bool, exec command: String? = nil
    ) async throws -> Int {
        let client = try client(for: store)
        let schedule = PollSchedule()
        var failed = 0
        let progress =
            quiet || (spec.option(named: "--quiet") != nil && arguments.flag("--quiet")) || !terminal.errorIsTerminal
            ? nil
            : TrackProgress(
                total: numbers.count, distinct: Set(numbers).count,
                interval: client.configuration.minimumRequestInterval,
                scheduler: client.scheduler, terminal: terminal)
        progress?.start()
        defer { progress?.stop() }
        for await answer in client.answers(for: numbers) {
            progress?.answered(answer.number)
            switch answer.result {
            case .success(let shipment):
                let now = Date()
                let changes = try store.record(shipment, fetchedAt: now) { watch, shipment in
                    schedule.nextCheck(
                        for: shipment, watchCreatedAt: watch.createdAt, now: now, random: .random(in: 0..<1))
                }
                for change in changes {
                    TrackProgress.whileCleared(progress) {
                        terminal.print(
                            "\(answer.number.formatted): \(Self.label(ofStatus: change.previous)) → \(shipment.status.label)"
                        )
                    }
                    if let command { Self.run(command, input: WebhookPayload.body(for: change), terminal: terminal) }
                }
            case .failure(let error):
                failed += 1
                terminal.printError("kuroneko: \(answer.number.formatted): \(error.message)")
            }
        }
        return failed
    }

    private func add(_ store: any WatchStore) async throws {
        let numbers = try numbers()
        var label: String?
        if let text = arguments.text("--label") {
            do {
                label = try WatchLabel.validated(text)
            } catch {
                throw CommandFailure.usage("add: --\(error)")
            }
        }
        for number in numbers {
            do {
                _ = try store.add(number, label: label, owner: .local, webhook: nil, now: Date())
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("add: \(error)")
            }
        }
        let failed = try await check(numbers, store: store, quiet: true)
        let watches = numbers.compactMap { try? store.watch($0, owner: .local) }
        terminal.print(
            WatchTable(language: .japanese, colored: terminal.usesColor(unlessTurnedOff: arguments.flag("--no-color")))
                .text(for: watches))
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }

    private func list(_ store: any WatchStore) throws {
        let watches = try store.watches(
            owner: .local, filter: arguments.flag("--all") ? .all : .active, after: nil,
            limit: WatchLimits.watchesPerOwner)
        if arguments.flag("--json") {
            let objects = try watches.map(Self.object)
            let data = try JSONSerialization.data(
                withJSONObject: objects, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return terminal.print(String(decoding: data, as: UTF8.self))
        }
        let language = try arguments.choice("--lang").flatMap(OutputOptions.Language.init(rawValue:)) ?? .japanese
        let colored = terminal.usesColor(unlessTurnedOff: arguments.flag("--no-color"))
        terminal.print(WatchTable(language: language, colored: colored).text(for: watches))
    }

    private func show(_ store: any WatchStore) throws {
        let numbers = try numbers()
        guard numbers.count == 1, let number = numbers.first else {
            throw CommandFailure.usage("show: give one NUMBER")
        }
        guard let watch = try store.watch(number, owner: .local) else {
            throw CommandFailure.usage("show: \(number.formatted) is not on the watch list; add it with 'kuroneko add'")
        }
        let changes = try store.changes(of: number, owner: .local) ?? []
        if arguments.flag("--json") {
            var object = try Self.object(watch)
            object["changes"] = changes.map { change in
                [
                    "id": change.id, "created_at": JapanDateTime(change.createdAt).iso8601,
                    "from": Self.label(ofStatus: change.previous),
                ]
            }
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return terminal.print(String(decoding: data, as: UTF8.self))
        }
        var lines = ["\(number.formatted)" + (watch.label.map { "  \($0)" } ?? "")]
        if let shipment = watch.latest?.shipment {
            lines.append(
                "\(shipment.status.label) (\(shipment.status.code))" + (shipment.product.map { "  \($0)" } ?? ""))
            for event in shipment.events {
                lines.append("  \(event.at?.iso8601 ?? event.dateText ?? "-")  \(event.label)  \(event.place ?? "")")
            }
        } else {
            lines.append("not checked yet")
        }
        lines.append("changes:" + (changes.isEmpty ? " none yet" : ""))
        for change in changes {
            lines.append("  \(JapanDateTime(change.createdAt).iso8601)  from \(Self.label(ofStatus: change.previous))")
        }
        terminal.print(lines.joined(separator: "\n"))
    }

    private func remove(_ store: any WatchStore) throws {
        for number in try numbers() {
            if try !store.remove(number, owner: .local) {
                terminal.printError("kuroneko: \(number.formatted) was not on the watch list")
            }
        }
    }

    private func refresh(_ store: any WatchStore) async throws {
        let watches = try store.watches(owner: .local, filter: .active, after: nil, limit: WatchLimits.watchesPerOwner)
        guard !watches.isEmpty else { return terminal.printError("kuroneko: no active watches to refresh") }
        let failed = try await check(watches.map(\.number), store: store, quiet: false)
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }

    private func watch(_ store: any WatchStore) async throws {
        let interval = try Self.duration(arguments.text("--interval") ?? "5m")
        let command = arguments.text("--exec")
        while true {
            let active = try store.watches(
                owner: .local, filter: .active, after: nil, limit: WatchLimits.watchesPerOwner)
            guard !active.isEmpty else {
                return terminal.printError("kuroneko: every watched parcel is finished")
            }
            _ = try await check(active.map(\.number), store: store, quiet: false, exec: command)
            let left = try store.watches(owner: .local, filter: .active, after: nil, limit: 1)
            if left.isEmpty { return terminal.printError("kuroneko: every watched parcel is finished") }
            try await Task.sleep(for: interval)
        }
    }

    /// `90`, `90s`, `5m`, `2h`: at least one second.
    static func duration(_ text: String) throws(CommandFailure) -> Duration {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600]
        let unit = text.last.flatMap { units[$0] }
        let number = Double(unit == nil ? text : String(text.dropLast()))
        guard let number, number * (unit ?? 1) >= 1, number * (unit ?? 1) <= 86_400 * 7 else {
            throw .usage(
                "watch: --interval \"\(text)\" is not a duration from 1s to 7 days; expected e.g. 90, 30s, 5m or 2h")
        }
        return .milliseconds(Int64(number * (unit ?? 1) * 1000))
    }

    /// Runs a command through /bin/sh with `input` on its standard input (and the tool's own output and
    /// error); a failure is one line on stderr.
    static func run(_ command: String, input: Data, terminal: Terminal) {
        let pipe = Pipe()
        do {
            let child = try ChildProcess(
                "/bin/sh", ["-c", command], input: pipe.fileHandleForReading.fileDescriptor,
                output: FileHandle.standardOutput.fileDescriptor, error: FileHandle.standardError.fileDescriptor)
            try pipe.fileHandleForReading.close()
            // A command that does not read its input may have gone already: a failed write is not an error.
            try? pipe.fileHandleForWriting.write(contentsOf: input)
            try? pipe.fileHandleForWriting.close()
            let status = child.wait()
            if status != 0 { terminal.printError("kuroneko: --exec command exited with status \(status)") }
        } catch {
            terminal.printError("kuroneko: --exec command could not start: \(error)")
        }
    }

    private func keys(_ store: any WatchStore) throws {
        let action = arguments.operands.first ?? "list"
        switch action {
        case "create":
            guard let name = arguments.text("--name"), !name.isEmpty, name.count <= 100 else {
                throw CommandFailure.usage("keys: create needs --name NAME (1 to 100 characters)")
            }
            let key = Secrets.random(prefix: "kn_")
            let calendar = Secrets.random(bytes: 16, prefix: "cal_")
            do {
                _ = try store.createKey(
                    name: name, keyHash: Secrets.sha256(key), calendarHash: Secrets.sha256(calendar), now: Date())
            } catch let error as WatchStoreError {
                throw CommandFailure.usage("keys: \(error)")
            }
            terminal.print(
                "key \(name): \(key)\ncalendar token: \(calendar)\n(shown once; only their hashes are stored)")
        case "list":
            for key in try store.keys() {
                let state = key.revokedAt.map { "revoked \(JapanDateTime($0).iso8601)" } ?? "active"
                terminal.print("\(key.id)  \(key.name)  created \(JapanDateTime(key.createdAt).iso8601)  \(state)")
            }
        case "revoke":
            guard arguments.operands.count == 2 else {
                throw CommandFailure.usage("keys: usage: kuroneko keys revoke NAME")
            }
            guard try store.revokeKey(arguments.operands[1], now: Date()) else {
                throw CommandFailure.usage("keys: no active key named \"\(arguments.operands[1])\"")
            }
            if try store.keys().allSatisfy({ $0.revokedAt != nil }) {
                terminal.print(
                    "revoked \(arguments.operands[1]), the last active key: the API is now closed to everyone until a "
                        + "key is created (kuroneko keys create --name NAME) or it is opened without keys (kuroneko keys open)")
            } else {
                terminal.print("revoked \(arguments.operands[1])")
            }
        case "open":
            let active = try store.keys().filter { $0.revokedAt == nil }
            guard active.isEmpty else {
                throw CommandFailure.usage(
                    "keys: \(active.count) key(s) are active; revoke them first (kuroneko keys revoke NAME) to open the API")
            }
            try store.openWithoutKeys(at: Date())
            terminal.print(
                "the API is open to everyone without a key, until a key is created (kuroneko keys create --name NAME)")
        default:
            let hint =
                Suggestion.closest(to: action, among: ["create", "list", "revoke", "open"]).map { "did you mean '\($0)'? " }
                ?? ""
            throw CommandFailure.usage("keys: unknown action '\(action)'; \(hint)use create, list, revoke or open")
        }
    }

    /// A watch exactly as the API serves it (``WatchJSON``), as an object to print pretty or add to.
    static func object(_ watch: Watch) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: WatchJSON.encode(watch)) as? [String: Any] ?? [:]
    }

    static func label(ofStatus json: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: json)) as? [String: Any])?["label"] as? String ?? "?"
    }
}


/// The home screen: number, label, status, last event, scheduled delivery, last checked.
struct WatchTable {
    let language: OutputOptions.Language
    let colored: Bool

    func text(for watches: [Watch]) -> String {
        let english = language == .english
        let rows = watches.map { watch -> [String] in
            let shipment = watch.latest?.shipment
            let status = shipment.map { english ? ($0.status.labelEnglish ?? $0.status.label) : $0.status.label } ?? "-"
            let last =
                shipment?.events.last.map {
                    ($0.at.map { String($0.iso8601.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "-") + " "
                        + ($0.place ?? "")
                } ?? "-"
            return [
                watch.number.formatted, watch.label ?? "-", status, last,
                shipment?.scheduledDelivery?.raw ?? "-",
                watch.checkedAt.map {
                    String(JapanDateTime($0).iso8601.prefix(16)).replacingOccurrences(of: "T", with: " ")
                } ?? "never",
            ]
        }
        let header =
            english
            ? ["NUMBER", "LABEL", "STATUS", "LAST EVENT", "SCHEDULED", "CHECKED"]
            : ["伝票番号", "ラベル", "状態", "最新", "お届け予定", "確認日時"]
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { displayWidth(of: $0[column]) }.max() ?? 0
        }
        var lines: [String] = []
        for (index, row) in ([header] + rows).enumerated() {
            let code = index == 0 ? nil : watches[index - 1].latest?.shipment?.status.code
            lines.append(
                row.enumerated().map { column, cell in
                    let padded = cell + String(repeating: " ", count: max(0, widths[column] - displayWidth(of: cell)))
                    guard column == 2, colored, let code, let color = ShipmentTable.color(for: code) else {
                        return padded
                    }
                    return "\u{1B}[\(color)m\(cell)\u{1B}[0m"
                        + String(repeating: " ", count: max(0, widths[column] - displayWidth(of: cell)))
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n")
    }
}
