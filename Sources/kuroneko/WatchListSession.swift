import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoProcess
import KuronekoServer
import KuronekoStore

/// What the watch-list commands (`add`, `list`, `show`, `remove`, `refresh`, `watch`, `keys`) share: the
/// local database, opened from `--db` (no server needed; a server may use the same file at once), and the
/// way numbers are checked and their changes recorded.
protocol WatchListCommand: ToolCommand {
    var database: DatabaseOption { get }
    /// `--list`, for the commands that act on one list.
    var listName: String? { get }
    /// How carriers are asked, for the commands that ask them.
    var clientFlags: ClientFlags? { get }
}

extension WatchListCommand {
    var listName: String? { nil }
    var clientFlags: ClientFlags? { nil }
}

struct WatchListSession {
    /// The command's name, for messages.
    let command: String
    let terminal: Terminal
    let store: any ListStore
    /// `--list NAME|ID`, where the command has it.
    let list: String?
    /// How carriers are asked, where the command asks them.
    let clientFlags: ClientFlags?

    init(_ command: some WatchListCommand, terminal: Terminal) throws(CommandFailure) {
        self.command = command.name
        self.terminal = terminal
        list = command.listName
        clientFlags = command.clientFlags
        let path =
            command.reader(terminal).text(command.database.db, .database)
            ?? SQLiteWatchStore.defaultPath(environment: terminal.environment)
        do {
            store = try DatabaseLocation.open(path, log: terminal.notices)
        } catch {
            throw .usage(DatabaseLocation.failure(command.name, path, error))
        }
    }

    /// The list the command acts on: `--list NAME|ID` (`kuroneko lists` shows them), today's list without it.
    func owner() async throws -> WatchOwner {
        guard let wanted = list else { return .local }
        let lists = try await store.lists()
        if let list = lists.first(where: { $0.id == wanted }) { return WatchOwner(id: list.id) }
        let named = lists.filter { $0.name == wanted }
        switch named.count {
        case 1: return WatchOwner(id: named[0].id)
        case 0:
            throw CommandFailure.usage(
                "\(command): --list: no list is named or numbered \"\(wanted.prefix(80))\"; kuroneko lists shows them")
        default:
            throw CommandFailure.usage(
                "\(command): --list: \(named.count) lists are named \"\(wanted.prefix(80))\"; give one's id ("
                    + named.map(\.id).joined(separator: ", ") + ")")
        }
    }

    /// The numbers given, each checked (at `carrier` when one is named); none is a usage error.
    func numbers(_ inputs: [String], carrier: Carrier? = nil, usage: String) throws(CommandFailure) -> [TrackingNumber] {
        guard !inputs.isEmpty else {
            throw .usage("\(command): no tracking number given; usage: kuroneko \(command) \(usage)")
        }
        return try NumberInput.validated(inputs, carrier: carrier, skipInvalid: false).numbers
    }

    /// The clients the commands ask with: on a PostgreSQL watch list, each carrier's within the budget the
    /// servers on that database share, so a `kuroneko refresh` (or `import --watch`) beside them never adds to
    /// what a carrier gets.
    func client() throws -> MultiCarrierClient {
        let clock = SystemClock()
        let reader = OptionReader(command: command, environment: terminal.environment)
        let configurations = try clientFlags?.configurations(reader) ?? Carrier.allCases.map(TrackingClient.Configuration.defaults(for:))
        return try ClientFlags.client(configurations) { configuration in
            guard let shared = store.shared else { return nil }
            return try shared.upstreamBudget(
                carrier: configuration.carrier, maxConcurrent: configuration.maxConcurrentRequests,
                minimumInterval: configuration.minimumRequestInterval, clock: clock)
        }
    }

    /// Looks the numbers up and records every answer; each failure one line on stderr. - Returns: failures.
    /// - Parameter carriers: where the watches are followed, for those that know it.
    func check(
        _ numbers: [TrackingNumber], carriers: [TrackingNumber: Carrier] = [:], quiet: Bool,
        exec command: String? = nil,
        printChanges: Bool = true
    ) async throws -> Int {
        let client = try client()
        let schedule = PollSchedule()
        var failed = 0
        let progress =
            quiet || !terminal.errorIsTerminal
            ? nil
            : TrackProgress(total: numbers.count, distinct: Set(numbers).count, client: client, terminal: terminal)
        progress?.start()
        defer { progress?.stop() }
        for await answer in client.answers(for: numbers, carriers: carriers) {
            progress?.answered(answer.number)
            switch answer.result {
            case .success(let shipment):
                let now = Date()
                let changes = try await store.record(shipment, fetchedAt: now) { watch, shipment in
                    schedule.nextCheck(
                        for: shipment, watchCreatedAt: watch.createdAt, now: now, random: .random(in: 0..<1))
                }
                for change in changes where printChanges || command != nil {
                    if printChanges {
                        TrackProgress.whileCleared(progress) {
                            terminal.print(
                                "\(answer.number.formatted): \(Self.label(ofStatus: change.previous)) → \(shipment.status.label)"
                            )
                        }
                    }
                    if let command {
                        let input = WebhookPayload.body(for: change)
                        let terminal = self.terminal
                        // The command is waited for on a thread of its own.
                        await awaitBlocking { Self.run(command, input: input, terminal: terminal) }
                    }
                }
            case .failure(let error):
                failed += 1
                terminal.printError("kuroneko: \(answer.number.formatted): \(error.message)")
            }
        }
        return failed
    }

    /// `90`, `90s`, `5m`, `2h`: at least one second.
    static func duration(_ text: String) throws(CommandFailure) -> Duration {
        try duration(text, option: "--interval", command: "watch", maximum: 86_400 * 7)
    }

    /// `90`, `90s`, `5m`, `2h`, `30d`: from one second to `maximum` seconds.
    static func duration(_ text: String, option: String, command: String, maximum: Double) throws(CommandFailure)
        -> Duration
    {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        let unit = text.last.flatMap { units[$0] }
        let number = Double(unit == nil ? text : String(text.dropLast()))
        guard let number, number.isFinite, number * (unit ?? 1) >= 1, number * (unit ?? 1) <= maximum else {
            let most = maximum >= 86_400 ? "\(Int(maximum / 86_400)) days" : "\(Int(maximum)) s"
            throw .usage(
                "\(command): \(option) \"\(text.prefix(40))\" is not a duration from 1s to \(most); expected e.g. 90, "
                    + "30s, 5m, 2h or 30d")
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

    /// A watch exactly as the API serves it (``WatchJSON``), as an object to print pretty or add to.
    static func object(_ watch: Watch) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: WatchJSON.encode(watch)) as? [String: Any] ?? [:]
    }

    static func label(ofStatus json: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: json)) as? [String: Any])?["label"] as? String ?? "?"
    }
}
