import Foundation

/// A spreadsheet's cell as Excel writes it into a CSV: `="123456789012"` (a formula that keeps the digits
/// as text), `'123456789012` (a leading apostrophe), or plain; `1.23457E+11` is Excel's rounded display of a
/// long number, whose digits are lost, and is refused.
public enum SheetCell {
    public enum Problem: Error, Equatable {
        case empty
        case rounded(String)
    }

    /// The cell's text with Excel's wrapping taken off.
    public static func number(in cell: String) -> Result<String, Problem> {
        var text = cell.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("=\""), text.hasSuffix("\""), text.count >= 3 {
            text = String(text.dropFirst(2).dropLast())
        } else if text.hasPrefix("'") {
            text = String(text.dropFirst())
        }
        text = text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .failure(.empty) }
        if isRounded(text) { return .failure(.rounded(text)) }
        return .success(text)
    }
}

extension SheetCell {
    /// Excel's rounded display of a long number: a digit, optionally a point and digits, then E, an optional +
    /// and one or two digits (`1.23457E+11`). Read by hand: a pattern costs more than the rest of a row.
    public static func isRounded(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func digit(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
        guard digit(0) else { return false }
        var index = 1
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digit(index) else { return false }
            while digit(index) { index += 1 }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else {
            return false
        }
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") { index += 1 }
        let start = index
        while digit(index) { index += 1 }
        return index == bytes.count && (1...2).contains(index - start)
    }
}

extension SheetCell.Problem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "has no tracking number"
        case .rounded(let text):
            "has \(text), Excel's rounded display of a long number: its digits are lost; format the column as "
                + "text in Excel and export again"
        }
    }
}
