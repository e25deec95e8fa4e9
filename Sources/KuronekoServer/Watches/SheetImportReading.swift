import Foundation
import Kuroneko
import KuronekoSheets
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
        /// The file row it is on (1-based).
        let row: Int
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

    /// The columns the uploader chose (`column=role=HEADER`), the numbers' among them.
    let chosen: [RecordRole: String]

    /// - Parameter noting: a first reading of the whole sheet, noting its repeated numbers (``repeats``).
    init(
        named: Carrier?, chosen: [RecordRole: String] = [:], noting: Bool = false, repeats: SheetRepeats = SheetRepeats()
    ) {
        self.named = named
        self.chosen = chosen
        self.noting = noting
        self.repeats = repeats
        report.repeated = repeats.repeatedNumbers
    }

    /// Rows read before the header is found (at most ``SheetHeaderSearch/rowsSearched``, each at most 64 KiB).
    private var waiting: [(number: Int, row: CSVStream.Row)] = []

    /// The numbers to watch a row gives: none for the header, a blank row or a row skipped and counted; the rows
    /// held while the header is looked for come all at once when it is found.
    mutating func read(_ row: CSVStream.Row, number: Int) throws(RouteProblem) -> [Wanted] {
        guard let sheet else {
            waiting.append((number, row))
            return try layOut(complete: false)
        }
        guard case .cells(let cells) = row else {
            report.skip("row \(number): longer than 64 KiB (an unclosed quote?)", .init(row: number, code: "row_too_long"))
            return []
        }
        return entry(cells, number: number, sheet: sheet).map { [$0] } ?? []
    }

    /// The end of the sheet: the rows still held when it is shorter than the rows the header is looked for in.
    mutating func finish() throws(RouteProblem) -> [Wanted] {
        guard sheet == nil, !waiting.isEmpty else { return [] }
        return try layOut(complete: true)
    }

    /// Lays the sheet out once its header is found among the rows held (``SheetHeaderSearch``), then reads the rows
    /// after it. The rows above a header (Amazon's `TemplateType` line) are not read.
    private mutating func layOut(complete: Bool) throws(RouteProblem) -> [Wanted] {
        let rows = waiting.map { entry -> [String]? in
            if case .cells(let cells) = entry.row { return cells }
            return nil
        }
        let column = chosen[.number]
        guard let found = SheetHeaderSearch.find(in: rows, column: column, complete: complete) else { return [] }
        var (at, known): (Int, SheetLayout?) = (0, nil)
        switch found {
        case .refused(let line): throw .bad("the sheet: \(line)")
        case .header(let index, let layout): (at, known) = (index, layout)
        case .firstRow: break
        }
        guard let cells = rows[at] else { throw .bad("the sheet's first row is longer than 64 KiB; is it a CSV file?") }
        let layout: ImportSheet
        do {
            layout = try ImportSheet(
                first: cells, column: column, labelColumn: nil, chosen: chosen.filter { $0.key != .number }, layout: known,
                row: waiting[at].number, columnOption: "column")
        } catch {
            throw .bad("the sheet's columns: \(error)")
        }
        self.sheet = layout
        report.describe(layout)
        let after = waiting[(layout.header == nil ? at : at + 1)...]
        waiting = []
        var wanted: [Wanted] = []
        for (number, row) in after {
            guard case .cells(let cells) = row else {
                report.skip("row \(number): longer than 64 KiB (an unclosed quote?)", .init(row: number, code: "row_too_long"))
                continue
            }
            if let one = entry(cells, number: number, sheet: layout) { wanted.append(one) }
        }
        return wanted
    }

    private mutating func entry(_ cells: [String], number: Int, sheet: ImportSheet) -> Wanted? {
        switch sheet.entry(of: cells, row: number, carrier: named) {
        case .blank: return nil
        case .skipped(let reason):
            let cell = sheet.column < cells.count ? String(cells[sheet.column].prefix(40)) : ""
            report.skip(reason, .init(row: number, code: "not_a_number", values: ["cell": cell]))
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
                        + "(give each parcel its own row's number)",
                    .init(row: number, code: "repeated_number", values: ["number": tracking.formatted, "rows": rows]))
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
            for problem in problems {
                report.note(
                    "row \(number): \(problem); kept without it",
                    .init(row: number, code: "part_left_out", values: ["part": SheetProblem.part(of: problem)]))
            }
            return Wanted(
                number: tracking, carrier: named ?? sheet.record.carrier(of: cells), label: sheet.label(of: cells),
                record: record, row: number)
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
    /// The same problems by stable code and values, for a page to word in its language.
    var problemDetails: [SheetProblem] = []
    var moreProblems = 0
    var columns: String?
    /// The known export the sheet is, with its columns: `B2クラウド 発行済みデータ, 97 columns`.
    var layout: String?
    /// The same in parts, for a page to word in its language.
    var layoutDetail: (name: String, columns: Int, headerRow: Int)?
    /// What the shop should know before relying on the import (a sheet of recipients without their e-mail).
    var warnings: [SheetWarning] = []
    /// Which column each role was read from (by its header, or `column N`), for a page to show and change.
    var mapping: [(role: String, column: String)] = []
    /// The header's cells (at most ``shownHeaders``, each cut to 80 characters): the columns a page may choose.
    var headers: [String] = []
    static let shownHeaders = 200
    var stopped: String?

    /// Says how the sheet was read: its layout, which column gave what, what it lacks.
    mutating func describe(_ sheet: ImportSheet) {
        let numbers = sheet.header.map { "number ← \($0[sheet.column])" } ?? "number ← column \(sheet.column + 1)"
        columns = numbers + (sheet.record.report.map { ", " + $0 } ?? "")
        if let known = sheet.layout {
            layoutDetail = (known.name, sheet.width, sheet.firstRow - 1)
            layout = "\(known.name), \(sheet.width) columns" + (sheet.firstRow > 2 ? ", header on row \(sheet.firstRow - 1)" : "")
        }
        let record = sheet.record
        if record.columnNames(of: .name) != nil, record.columnNames(of: .email) == nil { warnings.append(.noEmailColumn) }
        mapping = [("number", sheet.header.map { $0[sheet.column] } ?? "column \(sheet.column + 1)")]
            + RecordRole.allCases.compactMap { role in
                guard role != .number, let columns = record.columnNames(of: role) else { return nil }
                return (role.rawValue, columns)
            }
        // Cut by code points, as the answer's schema counts them.
        headers = (sheet.header ?? []).prefix(Self.shownHeaders).map {
            String(String.UnicodeScalarView($0.unicodeScalars.prefix(80)))
        }
    }

    mutating func added(created: Bool) {
        if created { watched += 1 } else { existing += 1 }
    }

    mutating func skip(_ reason: String, _ detail: SheetProblem) {
        skipped += 1
        note(reason, detail)
    }

    mutating func note(_ text: String, _ detail: SheetProblem) {
        guard problems.count < Self.shownProblems else {
            moreProblems += 1
            return
        }
        problems.append(text)
        problemDetails.append(detail)
    }

    /// Numbers that stood on more than one row.
    var repeated = 0

    func json(encoding: String) -> [String: Any] {
        [
            "rows": rows, "watched": watched, "existing": existing, "skipped": skipped, "repeated": repeated,
            "problems": problems,
            "problem_details": problemDetails.map { problem in
                problem.values.merging(["row": String(problem.row), "code": problem.code]) { value, _ in value }
            },
            "more_problems": moreProblems, "columns": columns ?? NSNull(), "encoding": encoding,
            "layout": layout ?? NSNull(),
            "layout_detail": layoutDetail.map { ["name": $0.name, "columns": $0.columns, "header_row": $0.headerRow] as [String: Any] }
                ?? NSNull(),
            "warnings": warnings.map { ["code": $0.rawValue, "detail": $0.detail] },
            "mapping": mapping.map { ["role": $0.role, "column": $0.column] }, "headers": headers,
            "stopped": stopped ?? NSNull(),
        ]
    }
}

/// What an import warns of, with a stable code a page words in its language.
enum SheetWarning: String {
    case noEmailColumn = "no_email_column"

    var detail: String {
        switch self {
        case .noEmailColumn:
            "no column holds the recipients' e-mail, so no customer can be told of their parcel; name it with "
                + "column email=HEADER"
        }
    }
}

/// A row's problem by a stable code (`not_a_number`, `repeated_number`, `part_left_out`, `row_too_long`,
/// `not_added`) and the values its words need (`cell`, `number` and `rows`, `part`, `detail`).
struct SheetProblem {
    let row: Int
    let code: String
    var values: [String: String] = [:]

    /// The record part a refusal names: `recipient.telephone` of `record.recipient.telephone "x" is not …`.
    static func part(of problem: String) -> String {
        guard problem.hasPrefix("record.") else { return "record" }
        return String(problem.dropFirst("record.".count).prefix { $0 != " " })
    }
}
