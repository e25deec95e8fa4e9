import Foundation
import Kuroneko
import KuronekoServer
import KuronekoStore

/// A sheet read for import: its header (when the first row is one), its rows, the column holding the
/// numbers (and the one holding labels, for `--watch`), and what each row's number cell says.
struct ImportSheet {
    /// What a row's number cell holds.
    enum Entry {
        case number(TrackingNumber)
        /// Why the row is skipped, in words that name the cell.
        case skipped(String)
        /// A row with nothing in it, written back as it is.
        case blank
    }

    let header: [String]?
    let rows: [[String]]
    /// The file row of `rows[0]` (1-based; 2 after a header).
    let firstRow: Int
    let column: Int
    let labelColumn: Int?
    /// How many columns every written row has before the tracking ones.
    let width: Int

    /// - Parameters:
    ///   - column: `N` (from 1) or a header's name.
    ///   - labelColumn: the same, for the labels `--watch` gives.
    init(rows all: [[String]], column: String, labelColumn labelName: String?) throws(CommandFailure) {
        guard let first = all.first else { throw .usage("import: the file has no rows") }
        func index(of name: String, option: String, headerRow: [String]) throws(CommandFailure) -> Int {
            if let number = Int(name) {
                guard number >= 1, number <= headerRow.count else {
                    throw .usage("import: \(option) \(number) is beyond the file's \(headerRow.count) columns")
                }
                return number - 1
            }
            guard let found = headerRow.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == name }) else {
                let shown = headerRow.prefix(30).map { String($0.prefix(40)) }.joined(separator: ", ")
                throw .usage("import: \(option): no column named \"\(name.prefix(80))\"; the header has \(shown)")
            }
            return found
        }
        let numberColumn = try index(of: column, option: "--column", headerRow: first)
        // A first row whose number cell holds no number is a header; a named column always has one.
        let firstCell = first[numberColumn]
        let hasHeader =
            Int(column) == nil
            || (try? SheetCell.number(in: firstCell).get()).flatMap { try? TrackingNumber(parsing: $0) } == nil
        self.column = numberColumn
        if let labelName {
            labelColumn = try index(of: labelName, option: "--label-column", headerRow: first)
        } else {
            labelColumn = nil
        }
        header = hasHeader ? first : nil
        rows = hasHeader ? Array(all.dropFirst()) : all
        firstRow = hasHeader ? 2 : 1
        width = all.map(\.count).max() ?? first.count
    }

    /// Every row's entry; numbers checked for `carrier` when one is named.
    func entries(carrier: Carrier?) -> [Entry] {
        rows.enumerated().map { offset, row in
            if row.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { return .blank }
            let cell = row.count > column ? row[column] : ""
            let shown = "\"\(cell.prefix(40))\(cell.count > 40 ? "…" : "")\""
            switch SheetCell.number(in: cell) {
            case .failure(let problem): return .skipped("row \(firstRow + offset): \(problem)")
            case .success(let text):
                do throws(TrackingNumberError) {
                    if let carrier { return .number(try TrackingNumber(parsing: text, for: carrier)) }
                    return .number(try TrackingNumber(parsing: text))
                } catch {
                    let reason =
                        error.description.hasPrefix("\"") ? error.description : "\(shown): \(error.description)"
                    return .skipped("row \(firstRow + offset): \(reason.prefix(200))")
                }
            }
        }
    }

    /// The label `--label-column` gives a row, when it is one a watch can have.
    func label(ofRow index: Int) -> String? {
        guard let labelColumn, rows[index].count > labelColumn else { return nil }
        let text = rows[index][labelColumn].trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : (try? WatchLabel.validated(String(text.prefix(200))))
    }

    /// The row as written: its own cells (padded to the sheet's width), then the tracking ones.
    func written(_ index: Int, tracking: [String]) -> [String] {
        let row = rows[index]
        return row + Array(repeating: "", count: max(0, width - row.count)) + tracking
    }

    /// The shop's header, then the tracking columns' in the output's language.
    func writtenHeader(english: Bool) -> [String] {
        let own = header ?? (1...width).map { "column_\($0)" }
        return own + Array(repeating: "", count: max(0, width - own.count)) + TrackingColumns.names(english: english)
    }

    static func cells(for shipment: Shipment, english: Bool) -> [String] {
        TrackingColumns.cells(for: shipment, english: english)
    }

    static func cells(error: String) -> [String] { TrackingColumns.cells(error: error) }
}
