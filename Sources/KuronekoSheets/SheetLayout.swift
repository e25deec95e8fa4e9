import Foundation
import Kuroneko

/// One known export's layout, described as data (the catalogue is ``SheetLayout/known``): the headers that tell
/// it apart, which of its columns means what, the carrier a label tool's own sheet is at, the codes a marketplace
/// writes for carriers, and, for a sheet that holds no numbers yet, which export to use instead.
/// Headers are compared folded (``RecordColumns/folded(_:)``: width, case, spaces, brackets and a trailing 1 do
/// not matter), so `お届け先名称１` and `お届け先名称1` are one header.
public struct SheetLayout: Sendable, Equatable, CustomStringConvertible {
    /// What people call the export: `B2クラウド 発行済みデータ`.
    public let name: String
    /// Headers every sheet of the layout has, each with its spellings (any one of them is enough).
    let signature: [[String]]
    /// The layout's own columns for each role, best first: a row's part is the first of them with text in it.
    let roles: [RecordRole: [String]]
    /// Roles whose columns are parts of one value, joined in order (a family name and a given name).
    let joined: [RecordRole: (parts: [String], separator: String)]
    /// The other columns worth keeping with each parcel (the rest of a 97-column export is not kept).
    let kept: [String]
    /// The carrier every number of the sheet is at (a label tool prints only its own carrier's labels).
    public let carrier: Carrier?
    /// A carrier column's codes (楽天's `1001`), folded.
    let carrierCodes: [String: Carrier]
    /// For an export that holds no tracking numbers: one line saying which export to use instead.
    public let refusal: String?

    init(
        name: String, signature: [[String]], roles: [RecordRole: [String]] = [:],
        joined: [RecordRole: (parts: [String], separator: String)] = [:], kept: [String] = [], carrier: Carrier? = nil,
        carrierCodes: [String: Carrier] = [:], refusal: String? = nil
    ) {
        self.name = name
        self.signature = signature.map { $0.map(RecordColumns.folded) }
        self.roles = roles.mapValues { $0.map(RecordColumns.folded) }
        self.joined = joined.mapValues { ($0.parts.map(RecordColumns.folded), $0.separator) }
        self.kept = kept.map(RecordColumns.folded)
        self.carrier = carrier
        self.carrierCodes = Dictionary(uniqueKeysWithValues: carrierCodes.map { (RecordColumns.folded($0.key), $0.value) })
        self.refusal = refusal
    }

    public var description: String { name }

    public static func == (lhs: SheetLayout, rhs: SheetLayout) -> Bool { lhs.name == rhs.name }

    /// Whether a row is this layout's header: it has every signature header (and, for a layout that holds no
    /// numbers, no column named for them).
    func matches(folded headers: Set<String>) -> Bool {
        guard signature.allSatisfy({ spellings in spellings.contains(where: headers.contains) }) else { return false }
        guard refusal != nil else { return true }
        return headers.isDisjoint(with: RecordRole.headers[.number] ?? [])
    }

    /// The known layout whose header `row` is, the most particular first; `nil` for any other row.
    public static func recognising(_ row: [String]) -> SheetLayout? {
        let headers = Set(row.map(RecordColumns.folded))
        return known.first { $0.matches(folded: headers) }
    }

    /// The carrier a carrier column's cell names by this layout's codes, if it is one.
    func carrier(code cell: String) -> Carrier? {
        carrierCodes[RecordColumns.folded(cell)]
    }
}

/// Where a sheet's header is among its first rows: the first row that is a known layout's header, else the first
/// with a column named for tracking numbers (or the column the user named), else the first row (a sheet of bare
/// numbers, or one whose columns are chosen by number). Pure: the caller hands it the rows read so far.
public enum SheetHeaderSearch {
    /// How many rows the header is looked for in (Amazon's template has one row above its header).
    public static let rowsSearched = 10

    public enum Found: Equatable {
        /// The header is row `index` (0-based among the rows handed in), of a known layout or not.
        case header(index: Int, layout: SheetLayout?)
        /// No row names its columns: the first row lays the sheet out as before.
        case firstRow
        /// A known export that holds no numbers; the line says which to use.
        case refused(String)
    }

    /// - Parameters:
    ///   - rows: the sheet's first rows (`nil` for a row too long to keep); blank rows left out.
    ///   - column: the number column the user named by its header, if any.
    ///   - complete: whether these are all the rows there are (else `nil` may ask for more).
    /// - Returns: where the header is, or `nil` while more rows are needed to tell.
    public static func find(in rows: [[String]?], column: String? = nil, complete: Bool) -> Found? {
        let named = column.flatMap { Int($0) == nil ? $0.trimmingCharacters(in: .whitespaces) : nil }
        for (index, row) in rows.prefix(rowsSearched).enumerated() {
            guard let row else { continue }
            if let layout = SheetLayout.recognising(row) {
                if let refusal = layout.refusal { return .refused("this is \(layout.name), \(refusal)") }
                return .header(index: index, layout: layout)
            }
            if let named {
                if row.contains(where: { $0.trimmingCharacters(in: .whitespaces) == named }) {
                    return .header(index: index, layout: nil)
                }
                continue
            }
            let numberHeaders = RecordRole.headers[.number] ?? []
            if row.contains(where: { numberHeaders.contains(RecordColumns.folded($0)) }) {
                return .header(index: index, layout: nil)
            }
            // A first row holding a number is a sheet without a header.
            if index == 0, Self.holdsNumber(row) { return .firstRow }
        }
        return complete || rows.count >= rowsSearched ? .firstRow : nil
    }

    private static func holdsNumber(_ row: [String]) -> Bool {
        row.contains { cell in
            (try? SheetCell.number(in: cell).get()).flatMap { try? TrackingNumber(parsing: $0) } != nil
        }
    }
}
