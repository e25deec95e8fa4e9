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
    /// Each number's first row in this sheet and what it said of the parcel (as many as the sheet has rows: the
    /// sheet itself is bounded).
    private var seen: [TrackingNumber: FirstRow] = [:]

    /// A number's first row: its number and the record it gave.
    struct FirstRow {
        let row: Int
        let record: ParcelRecord?

        /// What another row's record says differently of the parcel (its recipient, its order), or `nil` when it
        /// is the same parcel's (nothing set in both differs).
        func conflict(with other: ParcelRecord?) -> String? {
            func differs(_ first: String?, _ second: String?) -> Bool {
                guard let first, let second else { return false }
                return first != second
            }
            let (mine, theirs) = (record?.recipient, other?.recipient)
            var what: [String] = []
            if differs(mine?.name, theirs?.name) { what.append("name") }
            if differs(mine?.email, theirs?.email) { what.append("e-mail") }
            if differs(mine?.telephone, theirs?.telephone) { what.append("telephone") }
            if differs(mine?.postcode, theirs?.postcode) { what.append("postcode") }
            if differs(record?.reference, other?.reference) { what.append("order number") }
            return what.isEmpty ? nil : "recipient or order (" + what.joined(separator: ", ") + ")"
        }
    }
    private(set) var sheet: ImportSheet?
    var report = SheetImportReport()

    init(named: Carrier?) { self.named = named }

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
            let (record, problems) = sheet.record.record(of: cells)
            // A number on a second row (an order's lines, a label printed again) keeps its first row's record: a
            // row for another recipient or order is skipped and said, never merged into the first.
            if let first = seen[tracking] {
                if let reason = first.conflict(with: record) {
                    report.skip(
                        "row \(number): \(tracking.formatted) is on row \(first.row) too, with another \(reason); "
                            + "row \(first.row)'s is kept (give each parcel its own row)")
                    return nil
                }
                report.rows += 1
                report.existing += 1
                return nil
            }
            seen[tracking] = FirstRow(row: number, record: record)
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

    func json(encoding: String) -> [String: Any] {
        [
            "rows": rows, "watched": watched, "existing": existing, "skipped": skipped, "problems": problems,
            "more_problems": moreProblems, "columns": columns ?? NSNull(), "encoding": encoding,
            "stopped": stopped ?? NSNull(),
        ]
    }
}
