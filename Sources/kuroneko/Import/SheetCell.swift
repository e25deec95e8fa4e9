import Foundation

/// A spreadsheet's cell as Excel writes it into a CSV: `="123456789012"` (a formula that keeps the digits
/// as text), `'123456789012` (a leading apostrophe), or plain; `1.23457E+11` is Excel's rounded display of a
/// long number, whose digits are lost, and is refused.
enum SheetCell {
    enum Problem: Error, Equatable {
        case empty
        case rounded(String)
    }

    /// The cell's text with Excel's wrapping taken off.
    static func number(in cell: String) -> Result<String, Problem> {
        var text = cell.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("=\""), text.hasSuffix("\""), text.count >= 3 {
            text = String(text.dropFirst(2).dropLast())
        } else if text.hasPrefix("'") {
            text = String(text.dropFirst())
        }
        text = text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .failure(.empty) }
        if text.wholeMatch(of: /[0-9](\.[0-9]+)?[eE]\+?[0-9]{1,2}/) != nil { return .failure(.rounded(text)) }
        return .success(text)
    }
}

extension SheetCell.Problem: CustomStringConvertible {
    var description: String {
        switch self {
        case .empty: "has no tracking number"
        case .rounded(let text):
            "has \(text), Excel's rounded display of a long number: its digits are lost; format the column as "
                + "text in Excel and export again"
        }
    }
}
