import Foundation

/// A sheet's bytes turned into text a piece at a time: the encoding chosen from the first piece (a byte order
/// mark, `--encoding`, else UTF-8 when the first piece reads as UTF-8 and Shift_JIS (CP932) when it does not),
/// a character cut at a piece's end carried into the next. A byte that does not read is an error naming the
/// row it is on (the caller says how many rows came before).
public final class SheetDecoder {
    public let encoding: SheetEncoding
    private var carried: [UInt8] = []
    private let converter: iconv_t?
    private let name: String
    /// Whether the encoding was found rather than named (an error then says how to name it).
    private let guessed: Bool

    /// - Parameters:
    ///   - first: the sheet's first bytes (its byte order mark, if any, is dropped from them by ``decode``).
    public init(first: [UInt8], forced: SheetEncoding?) throws(SheetTextError) {
        guessed = forced == nil
        var chosen = forced
        let utf8BOM = first.starts(with: [0xEF, 0xBB, 0xBF])
        let utf16 = first.starts(with: [0xFF, 0xFE]) || first.starts(with: [0xFE, 0xFF])
        if utf16 {
            guard forced == nil || forced == .utf16 else {
                throw SheetTextError(description: "starts with a UTF-16 byte order mark, not \(forced!.name)")
            }
            chosen = .utf16
        } else if forced == .utf16 {
            throw SheetTextError(description: "has no UTF-16 byte order mark (FF FE or FE FF) at its start")
        } else if chosen == nil {
            chosen = utf8BOM || Self.readsAsUTF8(first) ? .utf8 : .cp932
        }
        encoding = chosen ?? .utf8
        switch encoding {
        case .utf8:
            converter = nil
            name = "UTF-8"
        case .utf16:
            converter = iconv_open("UTF-8", first.starts(with: [0xFF, 0xFE]) ? "UTF-16LE" : "UTF-16BE")
            name = "UTF-16"
        case .cp932:
            converter = iconv_open("UTF-8", "CP932")
            name = "Shift_JIS (CP932)"
        }
        if let converter, converter == iconv_t(bitPattern: -1) {
            throw SheetTextError(description: "cannot be read: this system's iconv has no \(name) converter")
        }
        skip = utf8BOM && encoding == .utf8 ? 3 : utf16 ? 2 : 0
    }

    /// Bytes still to drop from the start (a byte order mark).
    private var skip: Int

    deinit {
        if let converter { iconv_close(converter) }
    }

    /// Whether `bytes` are UTF-8, but for a character cut off at their end.
    public static func readsAsUTF8(_ bytes: [UInt8]) -> Bool {
        let complete = bytes.count - incompleteTail(bytes)
        return String(validating: bytes.prefix(complete), as: UTF8.self) != nil
    }

    /// How many bytes at the end of `bytes` begin a UTF-8 character that continues past them.
    public static func incompleteTail(_ bytes: [UInt8]) -> Int {
        for back in 1...min(3, max(1, bytes.count)) where bytes.count >= back {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0x80 { continue }
            let length = byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 1
            return length > back ? back : 0
        }
        return 0
    }

    /// The text of the next piece; `last` says no more follows (a character cut off there is an error).
    /// - Parameter row: the row the piece starts on, for an error's words.
    public func decode(_ piece: [UInt8], last: Bool, row: Int) throws(SheetTextError) -> String {
        var bytes = carried + piece
        carried = []
        if skip > 0 {
            let dropped = min(skip, bytes.count)
            bytes.removeFirst(dropped)
            skip -= dropped
        }
        switch encoding {
        case .utf8:
            let tail = last ? 0 : Self.incompleteTail(bytes)
            carried = Array(bytes.suffix(tail))
            let complete = bytes.prefix(bytes.count - tail)
            if let text = String(validating: complete, as: UTF8.self) { return text }
            let at = Self.firstInvalid(Array(complete))
            throw SheetTextError(
                description: "is not UTF-8: row \(row + Self.lines(in: complete.prefix(at))) has byte "
                    + "0x\(String(format: "%02X", complete[complete.startIndex + at])); give --encoding cp932 for a "
                    + "Shift_JIS file")
        case .utf16, .cp932:
            return try converted(bytes, last: last, row: row)
        }
    }

    private func converted(_ input: [UInt8], last: Bool, row: Int) throws(SheetTextError) -> String {
        guard let converter, !input.isEmpty else { return "" }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var failed: Int?
        var left = 0
        let written: Int = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = UnsafeMutablePointer(
                    mutating: UnsafeRawPointer(inBuffer.baseAddress!).assumingMemoryBound(to: CChar.self))
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                var source: UnsafeMutablePointer<CChar>? = inPointer
                if iconv(converter, &source, &inLeft, &outPointer, &outLeft) == -1 {
                    // EINVAL: a character cut off at the end, carried unless nothing follows.
                    if errno == EINVAL, !last { left = inLeft } else { failed = inBuffer.count - inLeft }
                }
                inPointer = source!
                return outBuffer.count - outLeft
            }
        }
        if let failed {
            let shown = input.dropFirst(failed).prefix(2).map { String(format: "%02X", $0) }.joined(separator: " ")
            let text = String(decoding: output.prefix(written), as: UTF8.self)
            throw SheetTextError(
                description: "is not \(name): row \(row + text.unicodeScalars.filter { $0 == "\n" }.count) has bytes "
                    + shown + (guessed ? "; it is not UTF-8 either; give --encoding if you know it" : ""))
        }
        carried = Array(input.suffix(left))
        return String(decoding: output.prefix(written), as: UTF8.self)
    }

    private static func lines(in bytes: ArraySlice<UInt8>) -> Int { bytes.lazy.filter { $0 == 0x0A }.count }

    private static func firstInvalid(_ bytes: [UInt8]) -> Int {
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
        return 0
    }
}
