import Foundation

/// One message as RFC 5322 and MIME lay it out: its headers (unfolded, RFC 2047 words decoded) and its parts,
/// each body decoded from its transfer encoding (base64, quoted-printable) and then from its charset. Parsing
/// never fails: what cannot be read is left out, within ``MailLimits``.
public struct ShippingMessage: Sendable {
    public let headers: [(name: String, value: String)]
    /// The readable parts, in order: text (plain or HTML) and messages attached whole (`message/rfc822`).
    public let parts: [ShippingMessagePart]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var subject: String { header("Subject") ?? "" }
    public var messageID: String? {
        header("Message-ID").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " <>\t")) }
    }
    public var from: MessageSender? { header("From").map(MessageSender.init(header:)) }
    public var date: String? { header("Date") }

    /// Parses `raw`, counting what it reads against `budget`.
    init(_ raw: Data, budget: inout MailBudget, depth: Int = 0) {
        let (head, body) = Self.split(raw)
        headers = Self.headers(head)
        var parts: [ShippingMessagePart] = []
        Self.collect(body, headers: headers, into: &parts, budget: &budget, depth: depth)
        self.parts = parts
    }

    public init(_ raw: Data, limits: MailLimits = MailLimits()) {
        var budget = MailBudget(limits: limits)
        self.init(raw, budget: &budget)
    }

    /// The header block and the body, split at the first empty line (slices of `raw`: nothing is copied).
    static func split(_ raw: Data) -> (Data, Data) {
        var index = raw.startIndex
        let end = raw.endIndex
        while let newline = raw[index..<end].firstIndex(of: 0x0A) {
            let next = newline + 1
            if next < end, raw[next] == 0x0A { return (raw[raw.startIndex..<newline], raw[(next + 1)...]) }
            if next + 1 < end, raw[next] == 0x0D, raw[next + 1] == 0x0A {
                return (raw[raw.startIndex..<newline], raw[(next + 2)...])
            }
            index = next
        }
        return (raw, Data())
    }

    /// Unfolded headers, at most 200, each value decoded (RFC 2047; raw 8-bit bytes as UTF-8 or else CP932).
    static func headers(_ head: Data) -> [(name: String, value: String)] {
        let text = String(data: head, encoding: .utf8) ?? MailCharset.decode(head, charset: "cp932")
        var unfolded: [String] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
            if let first = line.first, first == " " || first == "\t", !unfolded.isEmpty {
                unfolded[unfolded.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            } else if !line.isEmpty {
                unfolded.append(line)
            }
            if unfolded.count > 200 { break }
        }
        return unfolded.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (name, EncodedWords.decode(String(value.prefix(4_000))))
        }
    }

    /// The readable parts under one body, by its `Content-Type`.
    static func collect(
        _ body: Data, headers: [(name: String, value: String)], into parts: inout [ShippingMessagePart], budget: inout MailBudget,
        depth: Int
    ) {
        guard budget.takePart(), depth <= budget.limits.depth else { return }
        let type = ContentType(headers.first { $0.name.lowercased() == "content-type" }?.value ?? "text/plain")
        let encoding = headers.first { $0.name.lowercased() == "content-transfer-encoding" }?.value.lowercased()
            .trimmingCharacters(in: .whitespaces) ?? "7bit"
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }?.value.lowercased() ?? ""
        if type.type == "multipart" {
            guard let boundary = type.parameters["boundary"], !boundary.isEmpty else { return }
            for section in Self.sections(of: body, boundary: boundary, limit: budget.partsLeft) {
                let (head, inner) = Self.split(section)
                Self.collect(inner, headers: Self.headers(head), into: &parts, budget: &budget, depth: depth + 1)
            }
            return
        }
        let decoded = TransferEncoding.decode(body, encoding: encoding)
        guard budget.take(bytes: decoded.count) else { return }
        if type.type == "message", type.subtype == "rfc822" || type.subtype == "global" {
            parts.append(.message(ShippingMessage(decoded, budget: &budget, depth: depth + 1)))
            return
        }
        guard type.type == "text", !disposition.hasPrefix("attachment") || type.subtype == "plain" else { return }
        // A part's text past what is ever read (``MailLimits/partTextBytes``) is not decoded.
        let text = MailCharset.decode(decoded.prefix(budget.limits.partTextBytes), charset: type.parameters["charset"])
        parts.append(type.subtype == "html" ? .html(text) : .text(text))
    }

    /// The bodies between `--boundary` lines, up to `--boundary--` (slices of `body`: nothing is copied).
    static func sections(of body: Data, boundary: String, limit: Int = .max) -> [Data] {
        let delimiter = Data(("--" + boundary).utf8)
        var sections: [Data] = []
        var start: Int?
        var lineStart = body.startIndex
        let end = body.endIndex
        while lineStart <= end {
            let lineEnd = lineStart < end ? (body[lineStart..<end].firstIndex(of: 0x0A) ?? end) : end
            let line = body[lineStart..<lineEnd]
            if line.starts(with: delimiter) {
                let rest = line.dropFirst(delimiter.count)
                if let begun = start {
                    // The part ends before the line break that precedes the delimiter.
                    var partEnd = lineStart
                    if partEnd > begun, body[partEnd - 1] == 0x0A { partEnd -= 1 }
                    if partEnd > begun, body[partEnd - 1] == 0x0D { partEnd -= 1 }
                    sections.append(body[begun..<max(begun, partEnd)])
                    // Past the parts the message may still have, nothing more is looked at.
                    if sections.count >= limit { return sections }
                }
                if rest.starts(with: [0x2D, 0x2D]) { return sections }
                start = lineEnd + 1
            }
            lineStart = lineEnd + 1
        }
        if let begun = start, begun < end { sections.append(body[begun...]) }
        return sections
    }
}

/// A readable part of a message.
public enum ShippingMessagePart: Sendable {
    case text(String)
    case html(String)
    case message(ShippingMessage)
}

/// `From: "名前" <address>` read into its parts.
public struct MessageSender: Sendable, Hashable {
    public let name: String?
    public let address: String

    init(header: String) {
        if let open = header.lastIndex(of: "<"), let close = header[open...].firstIndex(of: ">") {
            address = String(header[header.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
            let display = header[..<open].trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))
            name = display.isEmpty ? nil : display
        } else {
            address = header.trimmingCharacters(in: .whitespaces)
            name = nil
        }
    }

    /// The part after `@`, lower case.
    public var domain: String { address.split(separator: "@").last.map { $0.lowercased() } ?? "" }
}

/// What a message may cost to read: its parts, their depth and the bytes decoded.
public struct MailLimits: Sendable, Hashable {
    /// The largest message read (bytes as received).
    public var messageBytes = 25 << 20
    public var parts = 100
    public var depth = 8
    public var decodedBytes = 32 << 20
    /// The most bytes of one text part decoded from its charset: the reader looks at 1 MiB of text and 4 MiB
    /// of HTML at most, so what lies past this is never read.
    public var partTextBytes = 4 << 20
    /// The most parcels taken from one message.
    public var parcels = 100

    public init() {}
}

struct MailBudget {
    let limits: MailLimits
    private var parts = 0
    private var bytes = 0

    init(limits: MailLimits) {
        self.limits = limits
    }

    /// Parts that may still be read.
    var partsLeft: Int { max(0, limits.parts - parts) }

    mutating func takePart() -> Bool {
        parts += 1
        return parts <= limits.parts
    }

    mutating func take(bytes count: Int) -> Bool {
        bytes += count
        return bytes <= limits.decodedBytes
    }
}

/// `text/html; charset="UTF-8"` read into its type, subtype and parameters (names lower case).
struct ContentType {
    let type: String
    let subtype: String
    let parameters: [String: String]

    init(_ value: String) {
        let pieces = value.split(separator: ";", omittingEmptySubsequences: true)
        let main = pieces.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "text/plain"
        let halves = main.split(separator: "/", maxSplits: 1)
        type = halves.first.map(String.init) ?? "text"
        subtype = halves.count > 1 ? String(halves[1]) : "plain"
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            parameters[name] = value
        }
        self.parameters = parameters
    }
}

/// RFC 2047 encoded words in a header: `=?charset?B?…?=` and `=?charset?Q?…?=`; the space between two words
/// is dropped.
enum EncodedWords {
    static func decode(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var result = ""
        var rest = Substring(value)
        var lastWasWord = false
        while let start = rest.range(of: "=?") {
            let before = rest[..<start.lowerBound]
            let afterStart = rest[start.upperBound...]
            let pieces = afterStart.split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
            guard pieces.count == 4, pieces[3].hasPrefix("="), ["B", "Q"].contains(pieces[1].uppercased()) else {
                result += before + "=?"
                rest = afterStart
                lastWasWord = false
                continue
            }
            if !(lastWasWord && before.allSatisfy(\.isWhitespace)) { result += before }
            let charset = String(pieces[0].split(separator: "*").first ?? "")
            let text = String(pieces[2])
            let bytes: Data
            if pieces[1].uppercased() == "B" {
                bytes = TransferEncoding.base64(Data(text.utf8))
            } else {
                bytes = TransferEncoding.quotedPrintable(Data(text.replacingOccurrences(of: "_", with: " ").utf8))
            }
            result += MailCharset.decode(bytes, charset: charset)
            rest = pieces[3].dropFirst()
            lastWasWord = true
        }
        return result + rest
    }
}

/// Content-Transfer-Encoding undone.
enum TransferEncoding {
    static func decode(_ body: Data, encoding: String) -> Data {
        switch encoding {
        case "base64": base64(body)
        case "quoted-printable": quotedPrintable(body)
        default: body
        }
    }

    /// Base64, ignoring line breaks and anything outside its alphabet (the URL-safe `-` and `_` read too); a
    /// tail of fewer than 4 characters is read as far as it goes. One table look-up a byte, into one buffer.
    static func base64(_ body: Data) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(body.count * 3 / 4 + 3)
        var quad: UInt32 = 0
        var held = 0
        body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            for byte in bytes {
                let value = base64Values[Int(byte)]
                guard value < 64 else { continue }
                quad = quad << 6 | UInt32(value)
                held += 1
                if held == 4 {
                    out.append(UInt8(truncatingIfNeeded: quad >> 16))
                    out.append(UInt8(truncatingIfNeeded: quad >> 8))
                    out.append(UInt8(truncatingIfNeeded: quad))
                    quad = 0
                    held = 0
                }
            }
        }
        if held == 2 { out.append(UInt8(truncatingIfNeeded: quad >> 4)) }
        if held == 3 {
            out.append(UInt8(truncatingIfNeeded: quad >> 10))
            out.append(UInt8(truncatingIfNeeded: quad >> 2))
        }
        return Data(out)
    }

    /// Each byte's value in base64's alphabet, or 255.
    private static let base64Values: [UInt8] = (0..<256).map { byte -> UInt8 in
        switch byte {
        case 0x41...0x5A: UInt8(byte - 0x41)
        case 0x61...0x7A: UInt8(byte - 0x61 + 26)
        case 0x30...0x39: UInt8(byte - 0x30 + 52)
        case 0x2B, 0x2D: 62
        case 0x2F, 0x5F: 63
        default: 255
        }
    }

    /// Quoted-printable: `=XX` bytes, soft line breaks (`=` at a line's end) removed, anything malformed kept.
    static func quotedPrintable(_ body: Data) -> Data {
        body.withUnsafeBytes { quotedPrintableBytes($0.bindMemory(to: UInt8.self)) }
    }

    private static func quotedPrintableBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x3D else {
                out.append(byte)
                index += 1
                continue
            }
            if index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 2
            } else if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
                index += 3
            } else if index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return Data(out)
    }
}
