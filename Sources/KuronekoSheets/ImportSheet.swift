import Foundation
import Kuroneko
import KuronekoStore

/// How a sheet read for import is laid out, from its first row: its header (when the first row is one), the
/// column holding the numbers (and the one holding labels, for `--watch`), and how many columns its rows have
/// before the tracking ones. Rows are read one at a time (``entry(of:row:carrier:)``), never all at once.
/// Why a sheet's first row cannot be laid out: a named column that is not there, columns that cannot be told
/// apart. One line naming the column and what the sheet has.
public struct SheetLayoutError: Error, CustomStringConvertible {
    public let description: String
}

public struct ImportSheet {
    /// What a row's number cell holds.
    public enum Entry {
        case number(TrackingNumber)
        /// Why the row is skipped, in words that name the cell.
        case skipped(String)
        /// A row with nothing in it, written back as it is.
        case blank
    }

    public let header: [String]?
    /// The known export the header is, when it is one.
    public var layout: SheetLayout? { record.layout }
    /// The file row of the first row after the header (1-based).
    public let firstRow: Int
    public let column: Int
    public let labelColumn: Int?
    /// Where each row's record is read from (``RecordColumns``): columns recognised by their header or chosen.
    public let record: RecordColumns
    /// How many columns every written row has before the tracking ones (the first row's; a longer row keeps
    /// its extra cells, which push its tracking columns along).
    public let width: Int

    /// - Parameters:
    ///   - first: the sheet's first row.
    ///   - column: `N` (from 1) or a header's name; `nil` for the column whose header names tracking numbers
    ///     (伝票番号, お問い合わせ番号, tracking number…), else the first.
    ///   - labelColumn: the same, for the labels `--watch` gives; `nil` for a column recognised as one (品名).
    ///   - chosen: the columns `--column role=HEADER` names.
    ///   - layout: the known export `first` is the header of (``SheetHeaderSearch``).
    ///   - row: the file row `first` is on (1-based): a header below other rows is not the first.
    public init(
        first: [String], column chosenColumn: String?, labelColumn labelName: String?, chosen: [RecordRole: String] = [:],
        layout: SheetLayout? = nil, row: Int = 1, columnOption: String = "--column"
    ) throws(SheetLayoutError) {
        let recognised = (try? RecordColumns(header: first, chosen: [:], layout: layout))?.roles[.number]
        let column = chosenColumn ?? recognised.map { String($0 + 1) } ?? "1"
        func index(of name: String, option: String, headerRow: [String]) throws(SheetLayoutError) -> Int {
            if let number = Int(name) {
                guard number >= 1, number <= headerRow.count else {
                    throw SheetLayoutError(description: "\(option) \(number) is beyond the file's \(headerRow.count) columns")
                }
                return number - 1
            }
            guard let found = headerRow.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == name }) else {
                let shown = headerRow.prefix(30).map { String($0.prefix(40)) }.joined(separator: ", ")
                throw SheetLayoutError(description: "\(option): no column named \"\(name.prefix(80))\"; the header has \(shown)")
            }
            return found
        }
        let numberColumn = try index(of: column, option: columnOption, headerRow: first)
        // A first row whose number cell holds no number is a header; a named column always has one.
        let firstCell = first[numberColumn]
        let hasHeader =
            layout != nil || Int(column) == nil
            || (try? SheetCell.number(in: firstCell).get()).flatMap { try? TrackingNumber(parsing: $0) } == nil
        self.column = numberColumn
        let chosenLabel = try labelName.map { name throws(SheetLayoutError) in
            try index(of: name, option: "--label-column", headerRow: first)
        }
        header = hasHeader ? first : nil
        firstRow = hasHeader ? row + 1 : row
        width = first.count
        var roles = chosen
        roles[.number] = String(numberColumn + 1)
        if let chosenLabel { roles[.label] = String(chosenLabel + 1) }
        do {
            record = try RecordColumns(header: header, width: first.count, chosen: roles, layout: layout)
        } catch {
            throw SheetLayoutError(description: error.description(option: columnOption))
        }
        labelColumn = chosenLabel ?? record.roles[.label]
    }

    /// What a row's number cell holds (`row` its 1-based row in the file); checked for `carrier` when one is
    /// named (`--carrier`, else the row's carrier column).
    public func entry(of cells: [String], row: Int, carrier named: Carrier?) -> Entry {
        let carrier = named ?? record.carrier(of: cells)
        if cells.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { return .blank }
        let cell = cells.count > column ? cells[column] : ""
        // A second header line under the first (Amazon's English keys: tracking-number) is not a row of numbers.
        if header != nil, RecordRole.headers[.number]?.contains(RecordColumns.folded(cell)) == true { return .blank }
        let shown = "\"\(cell.prefix(40))\(cell.count > 40 ? "…" : "")\""
        switch SheetCell.number(in: cell) {
        case .failure(let problem): return .skipped("row \(row): \(problem)")
        case .success(let text):
            do throws(TrackingNumberError) {
                if let carrier { return .number(try TrackingNumber(parsing: text, for: carrier)) }
                return .number(try TrackingNumber(parsing: text))
            } catch {
                // The cell shown at most 40 characters long, and the whole reason (never cut short mid-sentence).
                return .skipped("row \(row): \(shown) \(error.explanation)")
            }
        }
    }

    /// The label `--label-column` gives a row, when it is one a watch can have.
    public func label(of cells: [String]) -> String? {
        guard let labelColumn, cells.count > labelColumn else { return nil }
        let text = cells[labelColumn].trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : (try? WatchLabel.validated(String(text.prefix(200))))
    }

    /// The row as written: its own cells (padded to the sheet's width), then the tracking ones.
    public func written(_ cells: [String], tracking: [String]) -> [String] {
        cells + Array(repeating: "", count: max(0, width - cells.count)) + tracking
    }

    /// The shop's header, then the tracking columns' in the output's language.
    public func writtenHeader(english: Bool) -> [String] {
        let own = header ?? (1...max(1, width)).map { "column_\($0)" }
        return own + Array(repeating: "", count: max(0, width - own.count)) + TrackingColumns.names(english: english)
    }

    public static func cells(for shipment: Shipment, english: Bool, known: Carrier?) -> [String] {
        TrackingColumns.cells(for: shipment, english: english, known: known)
    }

    public static func cells(error: String) -> [String] { TrackingColumns.cells(error: error) }
}
