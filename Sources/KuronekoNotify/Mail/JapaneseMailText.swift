import Foundation

/// Text as ISO-2022-JP (RFC 1468): ASCII and JIS X 0208 only, each run ending back in ASCII. Foundation's
/// converter follows Microsoft's table (it writes 〜 only from ～, and NEC's row 13 for ① and ㈱), so the
/// characters the two tables map differently are taken to the ones it writes, and a text that needs anything
/// beyond JIS X 0208 (row 13, 髙, emoji, half-width kana) is refused: the caller sends UTF-8 instead.
public enum JapaneseMailText {
    /// The JIS standard's mappings Foundation does not write, to the code points it writes for the same bytes.
    private static let toMicrosoft: [Unicode.Scalar: Unicode.Scalar] = [
        "\u{301C}": "\u{FF5E}",  // 〜 WAVE DASH
        "\u{2016}": "\u{2225}",  // ‖ DOUBLE VERTICAL LINE
        "\u{2212}": "\u{FF0D}",  // − MINUS SIGN
        "\u{00A2}": "\u{FFE0}",  // ¢
        "\u{00A3}": "\u{FFE1}",  // £
        "\u{00AC}": "\u{FFE2}",  // ¬
        "\u{2014}": "\u{2015}",  // — EM DASH
    ]

    /// The bytes, or `nil` when the text holds a character ISO-2022-JP cannot write.
    public static func encoded(_ text: String) -> Data? {
        if text.unicodeScalars.allSatisfy({ $0.isASCII }) { return Data(text.utf8) }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(toMicrosoft[scalar] ?? scalar) }
        guard let data = String(scalars).data(using: .iso2022JP), onlyJISX0208(data) else { return nil }
        return data
    }

    /// The text as a reader decodes it from ISO-2022-JP (the JIS standard's code points: 〜 for ～, − for －),
    /// so that what is shown before sending is what arrives.
    public static func canonical(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(fromMicrosoft[scalar] ?? scalar) }
        return String(scalars)
    }

    private static let fromMicrosoft: [Unicode.Scalar: Unicode.Scalar] = [
        "\u{FF5E}": "\u{301C}", "\u{2225}": "\u{2016}", "\u{FF0D}": "\u{2212}", "\u{FFE0}": "\u{00A2}",
        "\u{FFE1}": "\u{00A3}", "\u{FFE2}": "\u{00AC}", "\u{2014}": "\u{2015}",
    ]

    /// Whether a text can be written in ISO-2022-JP.
    public static func fits(_ text: String) -> Bool { encoded(text) != nil }

    /// Every two-byte run in rows 1–8 and 16–84 of JIS X 0208; one-byte runs ASCII or JIS X 0201 Roman only.
    static func onlyJISX0208(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        var index = 0
        var twoBytes = false
        while index < bytes.count {
            if bytes[index] == 0x1B {
                guard index + 2 < bytes.count else { return false }
                switch (bytes[index + 1], bytes[index + 2]) {
                case (0x24, 0x42), (0x24, 0x40): twoBytes = true
                case (0x28, 0x42), (0x28, 0x4A): twoBytes = false
                default: return false
                }
                index += 3
                continue
            }
            if twoBytes {
                guard index + 1 < bytes.count else { return false }
                let row = Int(bytes[index]) - 0x20
                guard (1...8).contains(row) || (16...84).contains(row) else { return false }
                index += 2
            } else {
                guard bytes[index] < 0x80 else { return false }
                index += 1
            }
        }
        return !twoBytes
    }
}
