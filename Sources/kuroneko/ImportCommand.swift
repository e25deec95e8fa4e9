import ArgumentParser
import Foundation
import Kuroneko
import KuronekoServer
import KuronekoSheets
import KuronekoStore

/// `kuroneko import FILE|-`: a shop's sheet, tracked and (with `--watch`) watched.
struct ImportCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "import", usage: "[options] FILE.csv|-", summary: "track every number in a sheet, and watch them",
        description: [
            "Reads a CSV sheet (a file, or - for standard input; at most 64 MiB) in UTF-8 with or without a BOM, "
                + "UTF-16 by its BOM, or Shift_JIS as Windows and Excel write it (CP932): detected, or as "
                + "--encoding says. A file that is none of them is refused, naming the row of the first byte that "
                + "does not read. The numbers are in one column (--column); Excel's forms =\"123456789012\" and "
                + "'123456789012 are read, its rounded 1.23457E+11 is refused for its row.",
            "Writes the same sheet to standard output, every input column in order, with these columns after them: "
                + TrackingColumns.names.joined(separator: ", ")
                + " (named in Japanese under --lang ja; times and dates in ISO 8601; the status and carrier in --lang). "
                + "Rows come out in the file's order as their answers arrive, ten numbers a request. A row without a valid "
                + "number keeps its place with the reason in its error column; the first 20 such rows are also named on "
                + "standard error, the rest counted. A cell that would run as a formula in a spreadsheet (=, +, -, @, a tab "
                + "or a carriage return first) is written with a leading apostrophe. --excel writes a UTF-8 BOM and CRLF, "
                + "which Japanese Excel needs to show UTF-8, and every number of digits Excel would shorten (a leading 0, "
                + "more than 11 digits) as =\"…\"; "
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
        examples: [
            ("kuroneko import orders.csv --column 送り状番号 --excel > 追跡結果.csv", "a shop's Shift_JIS export, for Excel"),
            (
                "kuroneko import orders.csv --column tracking_no --watch --label-column order",
                "track and watch in one run"
            ),
        ])

    /// How a sheet is written: detected, or named.
    enum InputEncoding: String, CaseIterable, ExpressibleByArgument {
        case auto, utf8 = "utf-8", utf16 = "utf-16", cp932
    }

    /// How the sheet comes out.
    enum OutputEncoding: String, CaseIterable, ExpressibleByArgument {
        case utf8 = "utf-8", cp932
    }

    /// The sheet with tracking columns, or one JSON shipment a line.
    enum Output: String, CaseIterable, ExpressibleByArgument {
        case csv, json
    }

    @Option(
        help: .about(
            "the numbers' column (its number from 1, or its header's name; by default the one whose header "
                + "names tracking numbers, else the first); with --watch, ROLE=NAME names the column of a part "
                + "of each parcel's record (reference, name, telephone, email, postcode, prefecture, address, shipped_on, "
                + "note, label, carrier); repeatable", value: "N|NAME|ROLE=NAME"))
    var column: [String] = []
    @Option(help: .about("the column naming each row's carrier (a code, a name or ゆうパケット)", value: "N|NAME"))
    var carrierColumn: String?
    @Option(help: .about("how the sheet is written: detected, or utf-8, utf-16 or cp932 (Shift_JIS)", value: "ENCODING"))
    var encoding: InputEncoding = .auto
    @Option(help: .about("the sheet with tracking columns, or one JSON shipment a line", value: "FORMAT"))
    var output: Output = .csv
    @Option(help: .about("the sheet's encoding on output (a character CP932 lacks is written ?)", value: "ENCODING"))
    var outputEncoding: OutputEncoding = .utf8
    @Flag(help: .excel) var excel = false
    @Option(help: .about("language of the status labels", value: "LANG")) var lang: Language = .japanese
    @Option(help: .carrierLookup) var carrier: Carrier?
    @Flag(help: "add every valid number to the local watch list as it is answered") var watch = false
    @Option(help: .about("with --watch: the column whose text labels each watch", value: "N|NAME"))
    var labelColumn: String?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @OptionGroup var client: ClientFlags
    @Flag(name: .shortAndLong, help: "no progress and no summary on standard error") var quiet = false
    @Argument(help: .about("the sheet, or - for standard input", value: "FILE")) var files: [String] = []

    var listName: String? { list.list }
    var clientFlags: ClientFlags? { client }

    func run(on terminal: Terminal) async throws {
        guard files.count == 1 else {
            throw CommandFailure.usage(
                "import: expected one FILE.csv (or - for standard input), got \(files.count); usage: "
                    + "kuroneko import [options] FILE.csv")
        }
        if list.list != nil, !watch {
            throw CommandFailure.usage("import: --list names the list --watch adds to; add --watch")
        }
        if labelColumn != nil, !watch {
            throw CommandFailure.usage("import: --label-column names the labels --watch gives; add --watch")
        }
        let job = ImportJob(
            path: files[0], json: output == .json, quiet: quiet, english: lang == .english, excel: excel,
            encoding: SheetEncoding(rawValue: encoding.rawValue),
            outputEncoding: SheetEncoding(rawValue: outputEncoding.rawValue) ?? .utf8, watch: watch,
            configurations: try client.configurations(reader(terminal)), carrier: carrier,
            columns: try columns(), labelColumn: labelColumn, terminal: terminal)
        try await job.run { () throws(CommandFailure) in try WatchListSession(self, terminal: terminal) }
    }

    /// `--column N|HEADER` (the numbers', the last one given) and `--column role=HEADER` (repeatable), with
    /// `--carrier-column` as `carrier=`.
    func columns() throws(CommandFailure) -> (number: String?, roles: [RecordRole: String]) {
        var number: String?
        var roles: [RecordRole: String] = [:]
        for value in column {
            do {
                let (role, column) = try RecordRole.choice(value)
                if role == .number { number = column } else { roles[role] = column }
            } catch {
                throw .usage("import: \(error)")
            }
        }
        if let column = carrierColumn { roles[.carrier] = column }
        if roles.keys.contains(where: { $0 != .carrier }), !watch {
            throw .usage("import: --column role=HEADER and --carrier-column name what --watch keeps; add --watch")
        }
        return (number, roles)
    }
}

/// One run of `kuroneko import`: a shop's sheet in (UTF-8, UTF-16 or Shift_JIS), the same sheet out with the
/// tracking columns appended, every number tracked ten per request in the file's order, and with `--watch`
/// every valid number added to the watch list with its first answer (no second request for it).
struct ImportJob {
    /// The largest file read (a piece at a time; nothing past the limit is read).
    static let maximumBytes = 64 * 1_048_576
    /// The most row problems printed one by one; the rest are counted.
    static let printedProblems = 20

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
    /// `--label-column`.
    let labelColumn: String?
    let terminal: Terminal

    /// Rows parsed before their numbers are looked up: a shop's sheet is usually one batch; a larger file is
    /// read, looked up and written a batch at a time, so memory holds one batch whatever the file's size.
    static let batchRows = 5_000
    /// Answers kept for numbers that come again in a later batch (most recent first).
    static let rememberedAnswers = 10_000
    /// How much of the file is read at a time (a piece's rows are held until they are written: a piece of line
    /// breaks is 65,536 rows at most).
    static let pieceBytes = 1 << 16

    func run(session: () throws(CommandFailure) -> WatchListSession) async throws {
        let source = try SheetSource(path: path, limit: Self.maximumBytes)
        let name = source.name
        var state = ImportRun(command: self, session: watch ? try session() : nil)
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
