import Foundation
import Kuroneko
import KuronekoServer
import KuronekoStore

/// `kuroneko import FILE|-`: a shop's sheet in (UTF-8, UTF-16 or Shift_JIS), the same sheet out with the
/// tracking columns appended, every number tracked ten per request in the file's order, and with `--watch`
/// every valid number added to the watch list with its first answer (no second request for it).
struct ImportCommand: Command {
    static let spec = CommandCatalog.importCSV
    /// The largest file read: tens of thousands of rows, read whole into memory.
    static let maximumBytes = 64 * 1_048_576
    /// The most row problems printed one by one; the rest are counted.
    static let printedProblems = 20

    private let arguments: ArgumentList
    private let path: String
    private let json: Bool
    private let quiet: Bool
    private let english: Bool
    private let excel: Bool
    private let encoding: SheetEncoding?
    private let outputEncoding: SheetEncoding
    private let watch: Bool
    private let configurations: [TrackingClient.Configuration]
    private let carrier: Carrier?
    private let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.arguments = arguments
        self.terminal = terminal
        guard arguments.operands.count == 1 else {
            throw .usage(
                "import: expected one FILE.csv (or - for standard input), got \(arguments.operands.count); usage: "
                    + "kuroneko import [options] FILE.csv")
        }
        path = arguments.operands[0]
        json = try arguments.choice("--output") == "json"
        quiet = arguments.flag("--quiet")
        english = try arguments.choice("--lang") == "en"
        excel = arguments.flag("--excel")
        let chosen = try arguments.choice("--encoding") ?? "auto"
        encoding = SheetEncoding(rawValue: chosen)
        outputEncoding = SheetEncoding(rawValue: try arguments.choice("--output-encoding") ?? "utf-8") ?? .utf8
        watch = arguments.flag("--watch")
        if arguments.text("--label-column") != nil, !watch {
            throw .usage("import: --label-column names the labels --watch gives; add --watch")
        }
        configurations = try ClientOptions.configurations(arguments)
        carrier = try arguments.carrier("--carrier")
    }

    func run() async throws {
        let sheet = try ImportSheet(
            rows: CSV.rows(try readText()), column: arguments.text("--column") ?? "1",
            labelColumn: arguments.text("--label-column"))
        let entries = sheet.entries(carrier: carrier)
        let session = watch ? try WatchListSession(arguments, terminal: terminal) : nil
        var summary = ImportSummary(rows: entries.filter { if case .blank = $0 { false } else { true } }.count)
        var problems: [String] = []
        for case .skipped(let reason) in entries {
            summary.skipped += 1
            if problems.count < Self.printedProblems { problems.append(reason) }
        }
        for problem in problems { terminal.printError("kuroneko: \(problem); skipped") }
        if summary.skipped > problems.count {
            terminal.printError(
                "kuroneko: \(summary.skipped - problems.count) more rows skipped (their error column says why)")
        }
        // Each distinct number once, in the order it first appears; rows are written as soon as theirs is known.
        var order: [TrackingNumber] = []
        var firstRow: [TrackingNumber: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if case .number(let number) = entry, firstRow[number] == nil {
                firstRow[number] = index
                order.append(number)
            }
        }
        var results: [TrackingNumber: Result<Shipment, TrackingError>] = [:]
        var writer = SheetWriter(
            terminal: terminal, encoding: outputEncoding, excel: excel, json: json, header: sheet.writtenHeader(english: english))
        var nextRow = 0
        let flush = { (writer: inout SheetWriter) in
            while nextRow < entries.count {
                switch entries[nextRow] {
                case .number(let number):
                    guard let result = results[number] else { return }
                    switch result {
                    case .success(let shipment):
                        if json { writer.json(shipment) }
                        writer.row(sheet.written(nextRow, tracking: ImportSheet.cells(for: shipment, english: english)))
                    case .failure(let error):
                        writer.row(sheet.written(nextRow, tracking: ImportSheet.cells(error: error.message)))
                    }
                case .skipped(let reason):
                    writer.row(sheet.written(nextRow, tracking: ImportSheet.cells(error: reason)))
                case .blank:
                    writer.row(sheet.written(nextRow, tracking: ImportSheet.cells(error: "")))
                }
                nextRow += 1
            }
        }
        flush(&writer)
        let schedule = PollSchedule()
        var failures = FailureDigest()
        try await OrderedTracking.answers(
            order, carrier: carrier, client: try session?.client() ?? ClientOptions.client(configurations),
            quiet: quiet,
            terminal: terminal
        ) { answer in
            results[answer.number] = answer.result
            switch answer.result {
            case .success(let shipment): summary.tracked(shipment.status.code)
            case .failure(let error):
                summary.failed += 1
                failures.add(answer.number, error.message)
            }
            if let store = session?.store {
                try await Self.watch(
                    answer, label: firstRow[answer.number].flatMap(sheet.label(ofRow:)), store: store,
                    schedule: schedule)
                summary.watched += 1
            }
            flush(&writer)
        }
        flush(&writer)
        writer.finish()
        for line in failures.lines { terminal.printError("kuroneko: \(line)") }
        if writer.replaced > 0 {
            terminal.printError(
                "kuroneko: \(writer.replaced) characters CP932 has no code for were written as ?")
        }
        if !quiet { terminal.printError("kuroneko: import: \(summary.line)") }
        if summary.failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }

    /// The file's (or standard input's) bytes as text, refused by name when too large or unreadable.
    private func readText() throws(CommandFailure) -> String {
        let data: Data
        let name = path == "-" ? "standard input" : "\"\(path)\""
        if path == "-" {
            data = FileHandle.standardInput.readData(ofLength: Self.maximumBytes + 1)
        } else {
            guard let read = FileManager.default.contents(atPath: path) else {
                throw .usage("import: \(name) cannot be read; expected a CSV file")
            }
            data = read
        }
        guard data.count <= Self.maximumBytes else {
            throw .usage(
                "import: \(name) is over \(Self.maximumBytes / 1_048_576) MiB, which is what is read; split it")
        }
        do {
            let (text, used) = try SheetText.decode(data, as: encoding)
            if used == .cp932, encoding == nil, !quiet {
                terminal.printError("kuroneko: import: \(name) is not UTF-8; read as Shift_JIS (CP932)")
            }
            return text
        } catch {
            throw .usage("import: \(name) \(error)")
        }
    }

    /// Adds the number to the local watch list and records its answer, so the watch starts with it.
    private static func watch(
        _ answer: TrackingAnswer, label: String?, store: any WatchStore, schedule: PollSchedule
    ) async throws {
        let now = Date()
        let carrier = try? answer.result.get().carrier
        do {
            _ = try await store.add(answer.number, carrier: carrier, label: label, owner: .local, webhook: nil, now: now)
        } catch let error as WatchStoreError {
            throw CommandFailure.usage("import: --watch: \(error)")
        }
        if case .success(let shipment) = answer.result {
            _ = try await store.record(shipment, fetchedAt: now) { watch, shipment in
                schedule.nextCheck(for: shipment, watchCreatedAt: watch.createdAt, now: now, random: .random(in: 0..<1))
            }
        }
    }
}

/// What an import did, for its last line.
struct ImportSummary {
    let rows: Int
    var skipped = 0
    var failed = 0
    var watched = 0
    private(set) var byStatus: [StatusCode: Int] = [:]

    init(rows: Int) { self.rows = rows }

    mutating func tracked(_ code: StatusCode) { byStatus[code, default: 0] += 1 }

    /// `1,001 rows: 1,000 numbers tracked (delivered 400, in_transit 600), 1 skipped, 1,000 watched`.
    var line: String {
        let tracked = byStatus.values.reduce(0, +)
        let statuses = byStatus.sorted {
            $0.value > $1.value || ($0.value == $1.value && $0.key.rawValue < $1.key.rawValue)
        }
        .map { "\($0.key.rawValue) \(Self.count($0.value))" }.joined(separator: ", ")
        var parts = ["\(Self.count(tracked)) numbers tracked" + (statuses.isEmpty ? "" : " (\(statuses))")]
        parts.append("\(Self.count(skipped)) skipped")
        if failed > 0 { parts.append("\(Self.count(failed)) failed") }
        if watched > 0 { parts.append("\(Self.count(watched)) watched") }
        return "\(Self.count(rows)) rows: " + parts.joined(separator: ", ")
    }

    static func count(_ value: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        return formatter.string(from: NSNumber(value: value)) ?? String(value)
    }
}

/// Writes the sheet: CSV in UTF-8 (with a BOM and CRLF for `--excel`) or CP932, or JSON lines.
struct SheetWriter {
    let terminal: Terminal
    let encoding: SheetEncoding
    let excel: Bool
    let json: Bool
    private(set) var replaced = 0
    private var started = false
    private let header: [String]

    init(terminal: Terminal, encoding: SheetEncoding, excel: Bool, json: Bool, header: [String]) {
        self.terminal = terminal
        self.encoding = encoding
        self.excel = excel
        self.json = json
        self.header = header
    }

    mutating func row(_ cells: [String]) {
        guard !json else { return }
        if !started {
            started = true
            if excel, encoding == .utf8 { terminal.write(Data([0xEF, 0xBB, 0xBF])) }
            line(header)
        }
        line(cells)
    }

    mutating func json(_ shipment: Shipment) {
        if let data = try? JSONEncoder.kuroneko().encode(shipment) {
            terminal.print(String(decoding: data, as: UTF8.self))
        }
    }

    mutating func finish() {
        if !started, !json { row([]) }
    }

    private mutating func line(_ cells: [String]) {
        guard !cells.isEmpty else { return }
        let text = CSVLine.make(cells, excel: excel) + (excel ? "\r\n" : "\n")
        let (bytes, replaced) = SheetText.encode(text, as: encoding)
        self.replaced += replaced
        terminal.write(bytes)
    }
}
