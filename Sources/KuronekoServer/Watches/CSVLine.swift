import Foundation

/// Every CSV line Kuroneko writes (the import's sheet, `list --csv`, the API's and the web app's download) is
/// made here, cell by cell:
/// - a cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@` first, or a tab or carriage return) is
///   written as text, with a leading apostrophe (a carrier's page or a shop's cell can hold `=HYPERLINK(…)`),
///   except Excel's own form of a number kept as text, `="0123"` (letters, digits and hyphens in quotes), which
///   runs nothing and is what a shop's sheet holds;
/// - with `excel`, a cell of digits that Excel would shorten (a leading 0, or more than 11 digits, which Excel
///   shows as `4.47104E+11` and then keeps rounded) is written `="…"`, which Excel keeps as the text it is;
/// - a cell holding a comma, a quote or a line break is quoted (RFC 4180).
public enum CSVLine {
    /// The line's text, without its line end.
    public static func make(_ cells: [String], excel: Bool) -> String {
        cells.map { cell($0, excel: excel) }.joined(separator: ",")
    }

    public static func cell(_ value: String, excel: Bool) -> String {
        var value = value
        if let first = value.unicodeScalars.first,
            first == "\t" || first == "\r" || ("=+-@".unicodeScalars.contains(first) && value.count > 1),
            !isTextNumber(value)
        {
            value = "'" + value
        } else if excel, keepsDigits(value) {
            value = "=\"" + value + "\""
        }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `="…"` around letters, digits and hyphens only: Excel's way of keeping a number as text.
    static func isTextNumber(_ value: String) -> Bool {
        guard value.hasPrefix("=\""), value.hasSuffix("\""), value.count >= 3 else { return false }
        return value.dropFirst(2).dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// Whether Excel would change the digits: all ASCII digits, and a leading 0 or more than 11 of them.
    static func keepsDigits(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return value.hasPrefix("0") || value.utf8.count > 11
    }
}
