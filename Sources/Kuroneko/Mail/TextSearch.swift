/// Finding a word in a line by its UTF-8 bytes. Foundation's `range(of:)` bridges both strings on every call,
/// which made reading a mail of many lines cost seconds; the text read here is already in NFKC form, so a
/// byte-for-byte match is the match that matters.
extension StringProtocol {
    /// Where `needle` first (or, with `last`, last) occurs; `nil` when it does not, or is empty.
    func place(of needle: String, last: Bool = false) -> Range<String.Index>? {
        // Most lines read are short or empty: they are passed by before anything is allocated.
        guard utf8.count >= needle.utf8.count, !needle.isEmpty else { return nil }
        let pattern = Array(needle.utf8)
        let found =
            utf8.withContiguousStorageIfAvailable { TextSearch.offset(of: pattern, in: $0, last: last) }
            ?? TextSearch.offset(of: pattern, in: Array(utf8)[...], last: last)
        guard let found else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: found)
        return start..<utf8.index(start, offsetBy: pattern.count)
    }

    /// Whether `needle` occurs in it.
    func holds(_ needle: String) -> Bool { place(of: needle) != nil }
}

enum TextSearch {
    static func offset<Bytes: RandomAccessCollection>(of pattern: [UInt8], in bytes: Bytes, last: Bool) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let count = bytes.count - pattern.count
        guard count >= 0 else { return nil }
        let first = pattern[0]
        let base = bytes.startIndex
        func matches(at position: Int) -> Bool {
            guard bytes[base + position] == first else { return false }
            for index in 1..<pattern.count where bytes[base + position + index] != pattern[index] { return false }
            return true
        }
        if last {
            for position in stride(from: count, through: 0, by: -1) where matches(at: position) { return position }
        } else {
            for position in 0...count where matches(at: position) { return position }
        }
        return nil
    }
}

extension StringProtocol {
    /// The text without the spaces (U+0020, tabs, U+3000 and the other space separators) at either end.
    var trimmedOfSpaces: String {
        func isSpace(_ character: Character) -> Bool {
            character == " " || character == "\t"
                || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
