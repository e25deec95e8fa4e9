import Foundation
import Glibc

/// The encodings a sheet is read in: UTF-8 (with or without a BOM), UTF-16 (by its BOM), and Shift_JIS as
/// Windows writes it (CP932), what Excel and most Japanese shop and shipping systems export.
public enum SheetEncoding: String, CaseIterable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case cp932

    public var name: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16: "UTF-16"
        case .cp932: "Shift_JIS (CP932)"
        }
    }
}

/// Why a sheet's bytes were not read, naming the row of the first byte that does not read.
public struct SheetTextError: Error, CustomStringConvertible {
    public let description: String
}

/// Bytes to text and back, never guessing silently: a file is read as what its BOM says, else as UTF-8 when
/// it is valid UTF-8, else as CP932 when it is valid CP932 (the caller says so), else refused.
public enum SheetText {
    /// The text in `encoding` (UTF-8 or CP932); a character CP932 lacks is written `?`. - Returns: the
    /// bytes and how many characters were replaced.
    public static func encode(_ text: String, as encoding: SheetEncoding) -> (Data, replaced: Int) {
        guard encoding == .cp932 else { return (Data(text.utf8), 0) }
        let converter = iconv_open("CP932", "UTF-8")
        guard converter != iconv_t(bitPattern: -1) else { return (Data(text.utf8), 0) }
        defer { iconv_close(converter) }
        var input = Array(text.utf8)
        var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
        var replaced = 0
        let written: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                let base = UnsafeMutableRawPointer(inBuffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inPointer: UnsafeMutablePointer<CChar>? = base
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                while inLeft > 0, outLeft > 0 {
                    guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) == -1 else { break }
                    // A character CP932 lacks: `?` in its place, and on past its UTF-8 bytes.
                    let lead = UInt8(bitPattern: inPointer!.pointee)
                    let length = lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 1
                    let skip = min(length, inLeft)
                    inPointer = inPointer! + skip
                    inLeft -= skip
                    outPointer!.pointee = CChar(UInt8(ascii: "?"))
                    outPointer = outPointer! + 1
                    outLeft -= 1
                    replaced += 1
                }
                return outBuffer.count - outLeft
            }
        }
        return (Data(output.prefix(written)), replaced)
    }
}
