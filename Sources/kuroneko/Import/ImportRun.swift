import Foundation
import Kuroneko
import KuronekoServer
import KuronekoSheets
import KuronekoStore

/// The file (or standard input) an import reads, a piece at a time: refused by name when it cannot be read or
/// once more than `limit` bytes have come (nothing past the limit is read).
final class SheetSource {
    let name: String
    private let handle: FileHandle
    private let limit: Int
    private var read = 0
    private var ended = false
    /// The piece read ahead, to know whether the one handed out is the last.
    private var ahead: [UInt8]?

    init(path: String, limit: Int) throws(CommandFailure) {
        name = path == "-" ? "standard input" : "\"\(path)\""
        self.limit = limit
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var info = stat()
            guard let opened = FileHandle(forReadingAtPath: path), stat(path, &info) == 0 else {
                throw .usage("import: \(name) cannot be read; expected a CSV file")
            }
            guard (info.st_mode & S_IFMT) != S_IFDIR else { throw .usage("import: \(name) is a folder, not a CSV file") }
            // A regular file's size is known before anything is read.
            if (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > limit { throw Self.tooLarge(name, limit) }
            handle = opened
        }
    }

    static func tooLarge(_ name: String, _ limit: Int) -> CommandFailure {
        .usage("import: \(name) is over \(limit / 1_048_576) MiB, which is what is read; split it")
    }

    /// The next piece of at most `size` bytes and whether it is the last, or `nil` when nothing is left.
    func next(_ size: Int) throws(CommandFailure) -> (bytes: [UInt8], last: Bool)? {
        let current: [UInt8]
        if let ahead {
            current = ahead
            self.ahead = nil
        } else {
            guard !ended else { return nil }
            current = try piece(size)
            if current.isEmpty {
                ended = true
                return ([], true)
            }
        }
        let following = ended ? [] : try piece(size)
        if following.isEmpty {
            ended = true
            return (current, true)
        }
        ahead = following
        return (current, false)
    }

    private func piece(_ size: Int) throws(CommandFailure) -> [UInt8] {
        let data: Data
        do {
            data = try handle.read(upToCount: size) ?? Data()
        } catch {
            throw .usage("import: \(name) cannot be read: \(error.localizedDescription)")
        }
        read += data.count
        guard read <= limit else { throw Self.tooLarge(name, limit) }
        return [UInt8](data)
    }
}

/// What a row says of its number besides the number: kept with the watch `--watch` adds.
struct RowRecord {
    var label: String?
    var record: ParcelRecord?
    var carrier: Carrier?
}

/// One import's rows as they come, a batch at a time: the layout from the first row, each row's entry, the
/// batch's new numbers looked up in the file's order, every row written as soon as its answer is known,
/// problems said (at most 20, the rest counted), and the summary.
struct ImportRun {
    let command: ImportJob
    let session: WatchListSession?
    /// The list `--watch` adds to (`--list`).
    var owner: WatchOwner = .local
    private(set) var sheet: ImportSheet?
    private var writer: SheetWriter?
    private var summary = ImportSummary(rows: 0)
    private var nextRow = 1
    private var problems = 0
    private var failures = FailureDigest()
    private var remembered: [TrackingNumber: Result<Shipment, TrackingError>] = [:]
    private var rememberedOrder: [TrackingNumber] = []
    private let schedule = PollSchedule()

    init(command: ImportJob, session: WatchListSession?) {
        self.command = command
        self.session = session
    }

    private var terminal: Terminal { command.terminal }

    /// Reads a batch of rows: the first one lays the sheet out; each is written once its answer is known.
    mutating func process(_ rows: [CSVStream.Row]) async throws {
        var rows = rows[...]
        if sheet == nil {
            // Blank lines before the first row lay nothing out.
            while case .blank(let lines)? = rows.first {
                nextRow += lines
                rows = rows.dropFirst()
            }
            guard !rows.isEmpty else { return }
            // The header is looked for in the first rows (a batch holds them all, or the whole file).
            var searched: [(row: Int, cells: [String]?)] = []
            var fileRow = nextRow
            for row in rows {
                switch row {
                case .blank(let lines): fileRow += lines
                case .cells(let cells): searched.append((fileRow, cells))
                case .oversized: searched.append((fileRow, nil))
                }
                if case .blank = row { continue }
                fileRow += 1
                if searched.count >= SheetHeaderSearch.rowsSearched { break }
            }
            var (at, known): (Int, SheetLayout?) = (0, nil)
            switch SheetHeaderSearch.find(in: searched.map(\.cells), column: command.columns.number, complete: true) {
            case .refused(let line)?: throw CommandFailure.usage("import: \(line)")
            case .header(let index, let layout)?: (at, known) = (index, layout)
            case .firstRow?, nil: break
            }
            guard let cells = searched[at].cells else {
                throw CommandFailure.usage("import: the first row is longer than 64 KiB; is this a CSV sheet?")
            }
            let layout: ImportSheet
            do {
                layout = try ImportSheet(
                    first: cells, column: command.columns.number, labelColumn: command.labelColumn,
                    chosen: command.columns.roles, layout: known, row: searched[at].row)
            } catch {
                throw CommandFailure.usage("import: \(error)")
            }
            sheet = layout
            if command.watch, !command.quiet, layout.header != nil {
                let taken = layout.record.report.map { ", " + $0 } ?? ""
                if let known = layout.layout {
                    terminal.printError("kuroneko: import: \(known.name), \(layout.width) columns")
                }
                terminal.printError(
                    "kuroneko: import: columns: number ← \(layout.header?[layout.column] ?? "column \(layout.column + 1)")"
                        + taken)
            }
            writer = SheetWriter(
                terminal: terminal, encoding: command.outputEncoding, excel: command.excel, json: command.json,
                header: layout.writtenHeader(english: command.english))
            // The rows above the header (Amazon's TemplateType line) are not written back; the header is written
            // as the first row.
            let skipped = layout.header == nil ? at : at + 1
            var dropped = 0
            while dropped < skipped, let row = rows.first {
                rows = rows.dropFirst()
                if case .blank(let lines) = row {
                    nextRow += lines
                } else {
                    nextRow += 1
                    dropped += 1
                }
            }
        }
        guard let sheet else { return }
        // Each row's cells and entry; each number new to this batch once, in the order it first appears.
        var batch: [(cells: [String], entry: ImportSheet.Entry)] = []
        var order: [TrackingNumber] = []
        var asked = Set<TrackingNumber>()
        // What each new number's row says of it: its label, record and carrier (`--watch` keeps them).
        var described: [TrackingNumber: RowRecord] = [:]
        // The answers this batch's rows are written with: those remembered from earlier batches, taken now (the
        // memory of them may drop them while this batch is answered), and this batch's own.
        var answers: [TrackingNumber: Result<Shipment, TrackingError>] = [:]
        let repeats = command.watch ? Self.repeats(in: rows, from: nextRow, sheet: sheet, carrier: command.carrier) : SheetRepeats()
        summary.repeated += repeats.repeatedNumbers
        for row in rows {
            if case .blank(let lines) = row {
                nextRow += lines
                continue
            }
            let number = nextRow
            nextRow += 1
            let cells: [String]
            var entry: ImportSheet.Entry
            switch row {
            case .cells(let found):
                cells = found
                entry = sheet.entry(of: found, row: number, carrier: command.carrier)
                // A number on rows of different recipients is refused whole: no row's customer with another's.
                if case .number(let tracking) = entry, let rows = repeats.refusedRows(of: tracking) {
                    entry = .skipped(
                        "row \(number): \(tracking.formatted) is on rows \(rows) for different recipients; refused (give "
                            + "each parcel its own row's number)")
                }
            case .oversized:
                cells = []
                entry = .skipped("row \(number): longer than 64 KiB (an unclosed quote?)")
            case .blank: continue
            }
            switch entry {
            case .blank: break
            case .skipped(let reason):
                summary.rows += 1
                summary.skipped += 1
                problems += 1
                if problems <= ImportJob.printedProblems { terminal.printError("kuroneko: \(reason); skipped") }
            case .number(let tracking):
                summary.rows += 1
                if let known = remembered[tracking] {
                    answers[tracking] = known
                } else if asked.insert(tracking).inserted {
                    order.append(tracking)
                    var row = RowRecord(carrier: sheet.record.carrier(of: cells))
                    if command.watch {
                        let (record, refused) = sheet.record.record(of: cells)
                        for problem in refused {
                            problems += 1
                            if problems <= ImportJob.printedProblems {
                                terminal.printError("kuroneko: row \(number): \(problem); kept without it")
                            }
                        }
                        row.label = sheet.label(of: cells)
                        row.record = record
                        // One recipient's several order lines: one parcel, their references listed together.
                        if let listed = repeats.listedReference(of: tracking) { row.record?.reference = listed }
                    }
                    described[tracking] = row
                }
            }
            batch.append((cells, entry))
        }
        var written = 0
        let (english, json, named) = (command.english, command.json, command.carrier)
        let flush = { (run: inout ImportRun) in
            while written < batch.count {
                let (cells, entry) = batch[written]
                switch entry {
                case .number(let number):
                    guard let result = answers[number] else { return }
                    switch result {
                    case .success(let shipment):
                        if json { run.writer?.json(shipment) }
                        let tracking = ImportSheet.cells(for: shipment, english: english, known: named)
                        run.writer?.row(sheet.written(cells, tracking: tracking))
                    case .failure(let error):
                        run.writer?.row(sheet.written(cells, tracking: ImportSheet.cells(error: error.message)))
                    }
                case .skipped(let reason):
                    run.writer?.row(sheet.written(cells, tracking: ImportSheet.cells(error: reason)))
                case .blank:
                    run.writer?.row(sheet.written(cells, tracking: ImportSheet.cells(error: "")))
                }
                written += 1
            }
            run.writer?.flushOutput()
        }
        flush(&self)
        guard !order.isEmpty else { return }
        let client = try session?.client() ?? ClientFlags.client(command.configurations)
        var run = self
        // Numbers whose row names their carrier are asked there; the rest where their form says, each carrier's
        // numbers together (rows are still written in the file's order).
        var groups: [(carrier: Carrier?, numbers: [TrackingNumber])] = []
        for number in order {
            let carrier = command.carrier ?? described[number]?.carrier
            if let index = groups.firstIndex(where: { $0.carrier == carrier }) {
                groups[index].numbers.append(number)
            } else {
                groups.append((carrier, [number]))
            }
        }
        for group in groups {
        try await OrderedTracking.answers(
            group.numbers, carrier: group.carrier, client: client, quiet: command.quiet, terminal: terminal
        ) { answer in
            run.remember(answer.number, answer.result)
            answers[answer.number] = answer.result
            switch answer.result {
            case .success(let shipment): run.summary.tracked(shipment.status.code)
            case .failure(let error):
                run.summary.failed += 1
                run.failures.add(answer.number, error.message)
            }
            if let store = run.session?.store {
                let row = described[answer.number]
                try await ImportJob.watch(
                    answer, label: row?.label, record: row?.record, carrier: group.carrier, store: store,
                    owner: run.owner, schedule: run.schedule)
                run.summary.watched += 1
            }
            flush(&run)
        }
        }
        flush(&run)
        self = run
    }

    /// The numbers on more than one of a batch's rows, and whether their rows name one recipient (rows numbered
    /// from `first`, as the batch's loop numbers them).
    private static func repeats(
        in rows: ArraySlice<CSVStream.Row>, from first: Int, sheet: ImportSheet, carrier: Carrier?
    ) -> SheetRepeats {
        var repeats = SheetRepeats()
        var number = first
        for row in rows {
            switch row {
            case .blank(let lines): number += lines
            case .oversized: number += 1
            case .cells(let cells):
                if case .number(let tracking) = sheet.entry(of: cells, row: number, carrier: carrier) {
                    repeats.note(tracking, row: number, record: sheet.record.record(of: cells).record)
                }
                number += 1
            }
        }
        return repeats
    }

    /// Keeps an answer for a number that comes again, forgetting the oldest past the bound.
    private mutating func remember(_ number: TrackingNumber, _ result: Result<Shipment, TrackingError>) {
        if remembered.updateValue(result, forKey: number) == nil { rememberedOrder.append(number) }
        if rememberedOrder.count > ImportJob.rememberedAnswers * 2 {
            // Dropped in halves, so the bound costs nothing per answer.
            let dropped = rememberedOrder.prefix(rememberedOrder.count - ImportJob.rememberedAnswers)
            for old in dropped { remembered[old] = nil }
            rememberedOrder.removeFirst(dropped.count)
        }
    }

    /// The end: the rest of the problems counted, the failures by cause, the summary.
    mutating func finish() async throws {
        writer?.finish()
        if problems > ImportJob.printedProblems {
            terminal.printError(
                "kuroneko: \(problems - ImportJob.printedProblems) more rows skipped (their error column says why)")
        }
        for line in failures.lines { terminal.printError("kuroneko: \(line)") }
        if let replaced = writer?.replaced, replaced > 0 {
            terminal.printError("kuroneko: \(replaced) characters CP932 has no code for were written as ?")
        }
        if !command.quiet { terminal.printError("kuroneko: import: \(summary.line)") }
        if let session, summary.watched > 0 {
            await session.audit("imported", "\(summary.watched) parcels of \(summary.rows) rows", owner: owner)
        }
        if summary.failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}
