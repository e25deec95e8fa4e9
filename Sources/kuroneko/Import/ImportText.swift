import Foundation
import Glibc

/// The encodings a sheet is read in: UTF-8 (with or without a BOM), UTF-16 (by its BOM), and Shift_JIS as
/// Windows writes it (CP932), what Excel and most Japanese shop and shipping systems export.
enum SheetEncoding: String, CaseIterable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case cp932

    var name: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16: "UTF-16"
        case .cp932: "Shift_JIS (CP932)"
        }
    }
}

/// Why a sheet's bytes were not read, naming the row of the first byte that does not read.
struct SheetTextError: Error, CustomStringConvertible {
    let description: String
}

/// Bytes to text and back, never guessing silently: a file is read as what its BOM says, else as UTF-8 when
/// it is valid UTF-8, else as CP932 when it is valid CP932 (the caller says so), else refused.
enum SheetText {
    /// - Returns: the text and the encoding it was read in.
    static func decode(_ data: Data, as forced: SheetEncoding?) throws(SheetTextError) -> (String, SheetEncoding) {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]), forced == nil || forced == .utf8 {
            return (try utf8(Array(bytes.dropFirst(3)), rowOffset: 0), .utf8)
        }
        let littleEndian = bytes.starts(with: [0xFF, 0xFE])
        if littleEndian || bytes.starts(with: [0xFE, 0xFF]) {
            guard forced == nil || forced == .utf16 else {
                throw SheetTextError(description: "starts with a UTF-16 byte order mark, not \(forced!.name)")
            }
            let text = try converted(
                Array(bytes.dropFirst(2)), from: littleEndian ? "UTF-16LE" : "UTF-16BE", to: "UTF-8", name: "UTF-16",
                rowOf: { offset in row(in: bytes, utf16Offset: offset + 2, littleEndian: littleEndian) })
            return (String(decoding: text, as: UTF8.self), .utf16)
        }
        switch forced {
        case .utf8: return (try utf8(bytes, rowOffset: 0), .utf8)
        case .utf16: throw SheetTextError(description: "has no UTF-16 byte order mark (FF FE or FE FF) at its start")
        case .cp932: return (try cp932(bytes), .cp932)
        case nil:
            if let text = String(validating: bytes, as: UTF8.self) { return (text, .utf8) }
            do {
                return (try cp932(bytes), .cp932)
            } catch {
                let offset = firstInvalidUTF8(bytes) ?? 0
                throw SheetTextError(
                    description: "is neither UTF-8 nor Shift_JIS (CP932) nor UTF-16 with a byte order mark: as UTF-8, "
                        + "row \(row(in: bytes, at: offset)) has byte 0x\(String(format: "%02X", bytes[offset])); as CP932, "
                        + error.description.replacingOccurrences(of: "is not Shift_JIS (CP932): ", with: "")
                        + "; give --encoding if you know it")
            }
        }
    }

    /// The text in `encoding` (UTF-8 or CP932); a character CP932 lacks is written `?`. - Returns: the
    /// bytes and how many characters were replaced.
    static func encode(_ text: String, as encoding: SheetEncoding) -> (Data, replaced: Int) {
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

    private static func utf8(_ bytes: [UInt8], rowOffset: Int) throws(SheetTextError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let offset = firstInvalidUTF8(bytes) ?? 0
        throw SheetTextError(
            description: "is not UTF-8: row \(row(in: bytes, at: offset)) has byte "
                + "0x\(String(format: "%02X", bytes[offset])); give --encoding cp932 for a Shift_JIS file")
    }

    private static func cp932(_ bytes: [UInt8]) throws(SheetTextError) -> String {
        let text = try converted(
            bytes, from: "CP932", to: "UTF-8", name: "Shift_JIS (CP932)", rowOf: { row(in: bytes, at: $0) })
        return String(decoding: text, as: UTF8.self)
    }

    /// glibc's iconv, strictly: the first sequence that does not convert is an error naming its row.
    private static func converted(
        _ input: [UInt8], from source: String, to target: String, name: String, rowOf: (Int) -> Int
    ) throws(SheetTextError) -> [UInt8] {
        let converter = iconv_open(target, source)
        guard converter != iconv_t(bitPattern: -1) else {
            throw SheetTextError(description: "cannot be read: this system's iconv has no \(source) converter")
        }
        defer { iconv_close(converter) }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var failure: Int?
        let written: Int = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = UnsafeMutablePointer(
                    mutating: inBuffer.baseAddress.map { UnsafeRawPointer($0) }?
                        .assumingMemoryBound(to: CChar.self))
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                if inLeft > 0, iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) == -1 {
                    failure = inBuffer.count - inLeft
                }
                // A sequence cut off at the end of the file is as wrong as a bad one.
                return outBuffer.count - outLeft
            }
        }
        if let failure {
            let shown = input.dropFirst(failure).prefix(2).map { String(format: "%02X", $0) }.joined(separator: " ")
            throw SheetTextError(description: "is not \(name): row \(rowOf(failure)) has bytes \(shown)")
        }
        return Array(output.prefix(written))
    }

    private static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length =
                lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= bytes.count,
                String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil
            else { return index }
            index += length
        }
        return nil
    }

    /// The 1-based row (line) of the byte at `offset`.
    static func row(in bytes: [UInt8], at offset: Int) -> Int {
        1 + bytes.prefix(offset).lazy.filter { $0 == 0x0A }.count
    }

    private static func row(in bytes: [UInt8], utf16Offset offset: Int, littleEndian: Bool) -> Int {
        var rows = 1
        var index = 2
        while index + 1 < min(offset, bytes.count) {
            let unit =
                littleEndian
                ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            if unit == 0x0A { rows += 1 }
            index += 2
        }
        return rows
    }
}
