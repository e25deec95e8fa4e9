import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text of a mail in the charsets Japanese mail is written in: UTF-8, ISO-2022-JP (with the CP50220 extensions:
/// NEC's row 13 such as ① and ㈱, IBM's, and half-width katakana), Shift_JIS as Windows writes it (CP932),
/// EUC-JP, and ASCII or Latin-1. Bytes that do not decode become U+FFFD; nothing here throws.
public enum MailCharset {
    /// `bytes` as text in `charset` (a MIME charset name, any case); unnamed or unknown: UTF-8 when the bytes
    /// are UTF-8, ISO-2022-JP when they hold its escapes, else CP932.
    public static func decode(_ bytes: Data, charset: String?) -> String {
        let name = (charset ?? "").lowercased().trimmingCharacters(in: .whitespaces)
        switch name {
        case "utf-8", "utf8": return String(decoding: bytes, as: UTF8.self)
        case "us-ascii", "ascii": return String(decoding: bytes, as: UTF8.self)
        case "iso-2022-jp", "iso-2022-jp-ms", "cp50220", "cp50221", "cp50222", "csiso2022jp", "iso-2022-jp-2",
            "iso-2022-jp-3":
            return convert(iso2022ToCP932(bytes), from: "CP932")
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "cp932", "windows-31j", "ms_kanji", "csshiftjis":
            return convert(bytes, from: "CP932")
        case "euc-jp", "x-euc-jp", "eucjp", "cseucpkdfmtjapanese", "euc-jp-ms":
            return convert(bytes, from: "EUC-JP-MS")
        case "iso-8859-1", "latin1", "iso_8859-1", "windows-1252":
            return latin1(bytes)
        default:
            if String(data: bytes, encoding: .utf8) != nil { return String(decoding: bytes, as: UTF8.self) }
            if bytes.contains(0x1B) { return convert(iso2022ToCP932(bytes), from: "CP932") }
            return convert(bytes, from: "CP932")
        }
    }

    /// Latin-1 bytes as text: each byte is its code point, written straight to UTF-8 (one or two bytes), so a
    /// large part costs its bytes and no more.
    static func latin1(_ bytes: Data) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count + bytes.count / 4)
        for byte in bytes {
            if byte < 0x80 {
                utf8.append(byte)
            } else {
                utf8.append(0xC0 | byte >> 6)
                utf8.append(0x80 | byte & 0x3F)
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// ISO-2022-JP's escapes turned into the CP932 bytes of the same characters: JIS X 0208 rows (NEC's row 13
    /// and the IBM extensions included, as CP50220 writes them) become Shift_JIS pairs, ESC ( I half-width
    /// katakana single bytes; CP932's own table then reads them.
    static func iso2022ToCP932(_ bytes: Data) -> Data {
        enum Mode { case ascii, jis, kana }
        var out = Data()
        out.reserveCapacity(bytes.count)
        var mode = Mode.ascii
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x1B, index + 2 < bytes.endIndex {
                let first = bytes[index + 1]
                let second = bytes[index + 2]
                switch (first, second) {
                case (0x28, 0x42), (0x28, 0x4A): mode = .ascii
                case (0x24, 0x40), (0x24, 0x42): mode = .jis
                case (0x28, 0x49): mode = .kana
                default:
                    out.append(byte)
                    index += 1
                    continue
                }
                index += 3
                continue
            }
            if byte == 0x0A || byte == 0x0D {
                // A line ends in ASCII whatever the mode (a mail program that forgot ESC ( B).
                mode = .ascii
                out.append(byte)
                index += 1
                continue
            }
            switch mode {
            case .ascii:
                out.append(byte)
                index += 1
            case .kana:
                out.append(byte < 0x80 ? byte | 0x80 : byte)
                index += 1
            case .jis:
                guard index + 1 < bytes.endIndex else {
                    index += 1
                    continue
                }
                let row = bytes[index]
                let cell = bytes[index + 1]
                index += 2
                guard (0x21...0x7E).contains(row), (0x21...0x7E).contains(cell) else {
                    out.append(0x3F)
                    continue
                }
                // JIS X 0208 row and cell to the Shift_JIS pair.
                var lead = (Int(row) - 0x21) / 2 + 0x81
                if lead > 0x9F { lead += 0x40 }
                let trail: Int
                if row % 2 == 1 {
                    trail = Int(cell) + (cell >= 0x60 ? 0x20 : 0x1F)
                } else {
                    trail = Int(cell) + 0x7E
                }
                out.append(UInt8(lead))
                out.append(UInt8(trail))
            }
        }
        return out
    }

    /// `bytes` in the iconv charset `from` as text; a byte that does not convert becomes U+FFFD.
    static func convert(_ bytes: Data, from: String) -> String {
        guard !bytes.isEmpty else { return "" }
        let converter = iconv_open("UTF-8", from)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return String(decoding: bytes, as: UTF8.self) }
        defer { iconv_close(converter) }
        var output = Data()
        output.reserveCapacity(bytes.count * 2)
        var input = [UInt8](bytes)
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var buffer = [UInt8](repeating: 0, count: 16_384)
        input.withUnsafeMutableBufferPointer { source in
            var inPointer = UnsafeMutableRawPointer(source.baseAddress!).assumingMemoryBound(to: CChar.self)
            var inLeft = source.count
            while inLeft > 0 {
                let (result, produced): (Int, Int) = buffer.withUnsafeMutableBufferPointer { target in
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(target.baseAddress!)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = target.count
                    var inOptional: UnsafeMutablePointer<CChar>? = inPointer
                    let result = iconv(converter, &inOptional, &inLeft, &outPointer, &outLeft)
                    inPointer = inOptional ?? inPointer
                    return (result, target.count - outLeft)
                }
                output.append(contentsOf: buffer[0..<produced])
                if result == -1 {
                    if errno == E2BIG { continue }
                    // An invalid or cut-off sequence: one byte is skipped and said as U+FFFD.
                    output.append(contentsOf: replacement)
                    inPointer += 1
                    inLeft -= 1
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
