import Foundation

/// One response from an IMAP server: its first word (`*`, `+`, or a command's tag), its text with each literal
/// written `{n}` where it stood, and the literals' bytes in order.
struct IMAPResponse: Sendable {
    let tag: String
    let text: String
    let literals: [Data]
    /// Literals announced larger than the reader keeps: their bytes were read and dropped.
    let droppedLiterals: Int

    /// `OK`, `NO` or `BAD` for a tagged response.
    var condition: String { text.split(separator: " ", maxSplits: 1).first.map { $0.uppercased() } ?? "" }
}

/// Reads responses from bytes that arrive in pieces: lines end with CRLF; a line ending in `{n}` (or `{n+}`) is
/// followed by n bytes of literal and then the rest of the line. Bounded: a line longer than `maximumLine` or a
/// response of more than `maximumLiterals` literals is an error; a literal larger than `maximumLiteral` is read
/// and dropped (counted), so one large message never costs its size in memory. Pure: bytes in, responses out.
struct IMAPResponseReader {
    static let maximumLine = 1 << 20
    static let maximumLiterals = 1_000
    let maximumLiteral: Int

    private var buffer = Data()
    private var start = 0
    /// The response being read: its text so far, its literals, and what is left of a literal under way.
    private var text = ""
    private var literals: [Data] = []
    private var dropped = 0
    private var literalLeft = 0
    private var literalKept = true
    private var literal = Data()

    init(maximumLiteral: Int) {
        self.maximumLiteral = maximumLiteral
    }

    mutating func feed(_ bytes: Data) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + start))
            start = 0
        }
        buffer.append(bytes)
    }

    /// The next whole response, or `nil` until more bytes arrive.
    mutating func next() throws(MailboxError) -> IMAPResponse? {
        while true {
            if literalLeft > 0 {
                let available = min(literalLeft, buffer.count - start)
                guard available > 0 else { return nil }
                let base = buffer.startIndex + start
                if literalKept { literal.append(buffer[base..<(base + available)]) }
                start += available
                literalLeft -= available
                if literalLeft > 0 { return nil }
                if literalKept { literals.append(literal) } else { dropped += 1 }
                literal = Data()
                continue
            }
            let base = buffer.startIndex + start
            guard let newline = buffer[base...].firstIndex(of: 0x0A) else {
                if buffer.count - start > Self.maximumLine {
                    throw MailboxError(description: "the server sent a line longer than \(Self.maximumLine >> 20) MiB")
                }
                return nil
            }
            var lineEnd = newline
            if lineEnd > base, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            guard lineEnd - base <= Self.maximumLine else {
                throw MailboxError(description: "the server sent a line longer than \(Self.maximumLine >> 20) MiB")
            }
            let line = String(decoding: buffer[base..<lineEnd], as: UTF8.self)
            start = newline + 1 - buffer.startIndex
            text += line
            if let size = Self.literalSize(at: line) {
                guard literals.count + dropped < Self.maximumLiterals else {
                    throw MailboxError(description: "the server sent more than \(Self.maximumLiterals) literals in one response")
                }
                literalLeft = size
                literalKept = size <= maximumLiteral
                if size == 0 { literals.append(Data()) }
                continue
            }
            let whole = text
            let found = literals
            let droppedNow = dropped
            text = ""
            literals = []
            dropped = 0
            let split = whole.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return IMAPResponse(
                tag: String(split.first ?? ""), text: split.count > 1 ? String(split[1]) : "", literals: found,
                droppedLiterals: droppedNow)
        }
    }

    /// The n of a line that ends in `{n}` or `{n+}`.
    static func literalSize(at line: String) -> Int? {
        guard line.hasSuffix("}"), let open = line.lastIndex(of: "{") else { return nil }
        var digits = line[line.index(after: open)..<line.index(before: line.endIndex)]
        if digits.hasSuffix("+") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}
