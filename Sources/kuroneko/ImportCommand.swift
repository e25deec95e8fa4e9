import Foundation
import Kuroneko
import KuronekoServer
import KuronekoSheets
import KuronekoStore

/// `kuroneko import FILE|-`: a shop's sheet in (UTF-8, UTF-16 or Shift_JIS), the same sheet out with the
/// tracking columns appended, every number tracked ten per request in the file's order, and with `--watch`
/// every valid number added to the watch list with its first answer (no second request for it).
struct ImportCommand: Command {
    static let spec = CommandCatalog.importCSV
    /// The largest file read (a piece at a time; nothing past the limit is read).
    static let maximumBytes = 64 * 1_048_576
    /// The most row problems printed one by one; the rest are counted.
    static let printedProblems = 20

    let arguments: ArgumentList
    let path: String
    let json: Bool
    let quiet: Bool
    let english: Bool
    let excel: Bool
    let encoding: SheetEncoding?
    let outputEncoding: SheetEncoding
    let watch: Bool
    let configurations: [TrackingClient.Configuration]
    let carrier: Carrier?
    /// The numbers' column (`--column N|HEADER`) and the record's (`--column role=HEADER`, `--carrier-column`).
    let columns: (number: String?, roles: [RecordRole: String])
    let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.arguments = arguments
        self.terminal = terminal
        guard arguments.operands.count == 1 else {
            throw .usage(
                "import: expected one FILE.csv (or - for standard input), got \(arguments.operands.count); usage: "
                    + "kuroneko import [options] FILE.csv")
        }
        path = arguments.operands[0]
        json = try arguments.choice(.output) == "json"
        quiet = arguments.flag(.quiet)
        english = try arguments.choice(.lang) == "en"
        excel = arguments.flag(.excel)
        let chosen = try arguments.choice(.encoding) ?? "auto"
        encoding = SheetEncoding(rawValue: chosen)
        outputEncoding = SheetEncoding(rawValue: try arguments.choice(.outputEncoding) ?? "utf-8") ?? .utf8
        watch = arguments.flag(.watch)
        if arguments.text(.list) != nil, !watch {
            throw .usage("import: --list names the list --watch adds to; add --watch")
        }
        if arguments.text(.labelColumn) != nil, !watch {
            throw .usage("import: --label-column names the labels --watch gives; add --watch")
        }
        configurations = try ClientOptions.configurations(arguments)
        carrier = try arguments.carrier(.carrier)
        columns = try Self.columns(arguments)
    }

    /// `--column N|HEADER` (the numbers', the last one given) and `--column role=HEADER` (repeatable), with
    /// `--carrier-column` as `carrier=`.
    static func columns(_ arguments: ArgumentList) throws(CommandFailure) -> (number: String?, roles: [RecordRole: String]) {
        var number: String?
        var roles: [RecordRole: String] = [:]
        for value in arguments.allValues(named: "--column")?.texts ?? [] {
            do {
                let (role, column) = try RecordRole.choice(value)
                if role == .number { number = column } else { roles[role] = column }
            } catch {
                throw .usage("import: \(error)")
            }
        }
        if let column = arguments.text(.carrierColumn) { roles[.carrier] = column }
        if roles.keys.contains(where: { $0 != .carrier }), !arguments.flag(.watch) {
            throw .usage("import: --column role=HEADER and --carrier-column name what --watch keeps; add --watch")
        }
        return (number, roles)
    }

    /// Rows parsed before their numbers are looked up: a shop's sheet is usually one batch; a larger file is
    /// read, looked up and written a batch at a time, so memory holds one batch whatever the file's size.
    static let batchRows = 5_000
    /// Answers kept for numbers that come again in a later batch (most recent first).
    static let rememberedAnswers = 10_000
    /// How much of the file is read at a time (a piece's rows are held until they are written: a piece of line
    /// breaks is 65,536 rows at most).
    static let pieceBytes = 1 << 16

    func run() async throws {
        let source = try SheetSource(path: path, limit: Self.maximumBytes)
        let name = source.name
        var state = ImportRun(command: self, session: watch ? try WatchListSession(arguments, terminal: terminal) : nil)
        state.owner = try await state.session?.owner() ?? .local
        var parser: CSVStream?
        var rows = 0
        var batch: [CSVStream.Row] = []
        var decoder: SheetDecoder?
        while let piece = try source.next(Self.pieceBytes) {
            if decoder == nil {
                do {
                    decoder = try SheetDecoder(first: piece.bytes, forced: encoding)
                } catch {
                    throw CommandFailure.usage("import: \(name) \(error)")
                }
                if decoder?.encoding == .cp932, encoding == nil, !quiet {
                    terminal.printError("kuroneko: import: \(name) is not UTF-8; read as Shift_JIS (CP932)")
                }
            }
            let text: String
            do {
                text = try decoder!.decode(piece.bytes, last: piece.last, row: rows + 1)
            } catch {
                throw CommandFailure.usage("import: \(name) \(error)")
            }
            // Commas, or tabs when the first lines have more of them (Amazon's templates).
            var reader = parser ?? CSVStream(separator: CSVStream.separator(of: text[...]))
            reader.feed(text) { row in
                rows += 1
                batch.append(row)
            }
            if piece.last {
                reader.finish { row in
                    rows += 1
                    batch.append(row)
                }
            }
            parser = reader
            while batch.count >= Self.batchRows || (piece.last && !batch.isEmpty) {
                let taken = Array(batch.prefix(Self.batchRows))
                batch.removeFirst(taken.count)
                try await state.process(taken)
            }
        }
        guard state.sheet != nil else { throw CommandFailure.usage("import: the file has no rows") }
        try await state.finish()
    }

    /// Adds the number to the local watch list and records its answer, so the watch starts with it. The watch is
    /// at `named` (`--carrier`), else at the carrier that knows the number; a number no carrier knows yet is
    /// watched with its carrier unknown (asked of each candidate until one knows it), never as the first one's.
    static func watch(
        _ answer: TrackingAnswer, label: String?, record: ParcelRecord?, carrier named: Carrier?,
        store: any WatchStore, owner: WatchOwner, schedule: PollSchedule
    ) async throws {
        let now = Date()
        let found = (try? answer.result.get()).flatMap { $0.status.code == .notFound ? nil : $0.carrier }
        let carrier = named ?? found
        do {
            _ = try await store.add(
                answer.number, carrier: carrier, label: label, record: record.map(ParcelRecordChange.init(filling:)),
                owner: owner, webhook: nil, now: now)
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
    var rows: Int
    var skipped = 0
    var failed = 0
    var watched = 0
    /// Numbers that stood on more than one row (of one batch: a shop's sheet is one).
    var repeated = 0
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
        if repeated > 0 { parts.append("\(Self.count(repeated)) numbers on more than one row") }
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
    /// Lines not yet written.
    private var pending = ""

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
            if excel, encoding == .utf8 { pending += "\u{FEFF}" }
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
        flushOutput()
    }

    /// Writes what is waiting (a syscall per flush, not per row; a sheet's rows still come out as their answers
    /// arrive, as the import flushes after each).
    mutating func flushOutput() {
        guard !pending.isEmpty else { return }
        let (bytes, replaced) = SheetText.encode(pending, as: encoding)
        self.replaced += replaced
        terminal.write(bytes)
        pending = ""
    }

    private mutating func line(_ cells: [String]) {
        guard !cells.isEmpty else { return }
        pending += CSVLine.make(cells, excel: excel) + (excel ? "\r\n" : "\n")
        if pending.utf8.count >= 65_536 { flushOutput() }
    }
}
