import Foundation
import Kuroneko
import KuronekoStore

/// An uploaded sheet's rows as they come (`POST /v1/watches/import`): the first lays the sheet out (its header
/// recognised as `kuroneko import` recognises it), each later one is a number to watch, with its row's label,
/// record and carrier, or a row skipped with its reason. The report counts them.
struct SheetImportReading {
    /// A row's number and what the row says of it.
    struct Wanted {
        let number: TrackingNumber
        let carrier: Carrier?
        let label: String?
        let record: ParcelRecord?
    }

    /// The carrier the whole sheet is at (`?carrier=`), else each row's carrier column, else found.
    let named: Carrier?
    /// What the whole sheet's rows say of the numbers on more than one row (a first reading's); empty while that
    /// reading is made.
    var repeats = SheetRepeats()
    /// The numbers already taken from this sheet.
    private var taken: Set<TrackingNumber> = []
    /// Whether this is the first reading, which only notes the repeats.
    private let noting: Bool

    private(set) var sheet: ImportSheet?
    var report = SheetImportReport()

    /// - Parameter noting: a first reading of the whole sheet, noting its repeated numbers (``repeats``).
    init(named: Carrier?, noting: Bool = false, repeats: SheetRepeats = SheetRepeats()) {
        self.named = named
        self.noting = noting
        self.repeats = repeats
        report.repeated = repeats.repeatedNumbers
    }

    /// The row's number to watch, or `nil` (the header, a blank row, a row skipped and counted).
    mutating func read(_ row: CSVStream.Row, number: Int) throws(RouteProblem) -> Wanted? {
        guard let sheet else {
            guard case .cells(let cells) = row else {
                throw .bad("the sheet's first row is longer than 64 KiB; is it a CSV file?")
            }
            let layout: ImportSheet
            do {
                layout = try ImportSheet(first: cells, column: nil, labelColumn: nil)
            } catch {
                throw .bad("the sheet's columns: \(error)")
            }
            self.sheet = layout
            let numbers = layout.header.map { "number ← \($0[layout.column])" } ?? "number ← column \(layout.column + 1)"
            report.columns = numbers + (layout.record.report.map { ", " + $0 } ?? "")
            return layout.header == nil ? entry(cells, number: number, sheet: layout) : nil
        }
        guard case .cells(let cells) = row else {
            report.skip("row \(number): longer than 64 KiB (an unclosed quote?)")
            return nil
        }
        return entry(cells, number: number, sheet: sheet)
    }

    private mutating func entry(_ cells: [String], number: Int, sheet: ImportSheet) -> Wanted? {
        switch sheet.entry(of: cells, row: number, carrier: named) {
        case .blank: return nil
        case .skipped(let reason):
            report.skip(reason)
            return nil
        case .number(let tracking):
            var (record, problems) = sheet.record.record(of: cells)
            if noting {
                repeats.note(tracking, row: number, record: record)
                return nil
            }
            // A number on rows naming different recipients is refused whole: no row's customer with another's.
            if let rows = repeats.refusedRows(of: tracking) {
                report.skip(
                    "row \(number): \(tracking.formatted) is on rows \(rows) for different recipients; refused "
                        + "(give each parcel its own row's number)")
                return nil
            }
            // The same parcel's other order lines: one parcel, its references listed together.
            guard taken.insert(tracking).inserted else {
                report.rows += 1
                report.existing += 1
                return nil
            }
            if let listed = repeats.listedReference(of: tracking) { record?.reference = listed }
            report.rows += 1
            for problem in problems { report.note("row \(number): \(problem); kept without it") }
            return Wanted(
                number: tracking, carrier: named ?? sheet.record.carrier(of: cells), label: sheet.label(of: cells),
                record: record)
        }
    }
}

/// What an import did: rows with a number, watches added and already there, rows skipped, the first problems
/// in words (at most ``shownProblems``, the rest counted), and where it stopped, if it did.
struct SheetImportReport {
    static let shownProblems = 20

    var rows = 0
    var watched = 0
    var existing = 0
    var skipped = 0
    var problems: [String] = []
    var moreProblems = 0
    var columns: String?
    var stopped: String?

    mutating func added(created: Bool) {
        if created { watched += 1 } else { existing += 1 }
    }

    mutating func skip(_ reason: String) {
        skipped += 1
        note(reason)
    }

    mutating func note(_ text: String) {
        if problems.count < Self.shownProblems { problems.append(text) } else { moreProblems += 1 }
    }

    /// Numbers that stood on more than one row.
    var repeated = 0

    func json(encoding: String) -> [String: Any] {
        [
            "rows": rows, "watched": watched, "existing": existing, "skipped": skipped, "repeated": repeated,
            "problems": problems,
            "more_problems": moreProblems, "columns": columns ?? NSNull(), "encoding": encoding,
            "stopped": stopped ?? NSNull(),
        ]
    }
}
