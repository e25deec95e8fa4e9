import Foundation

/// HTML reduced to the text a person reads, each link's address written after its text (`配送状況 <https://…>`)
/// so that a number carried only in a link is still seen; scripts, styles and comments dropped, block ends made
/// line breaks, character references decoded. Works on UTF-8 bytes in one pass: each byte is looked at a bounded
/// number of times, so the time is linear in the markup whatever its shape (tags or comments never closed,
/// thousands of links, floods of `&`).
enum MailText {
    static func fromHTML(_ html: String) -> String {
        var html = html
        return html.withUTF8 { String(decoding: decodeReferences(reduce($0)), as: UTF8.self) }
    }

    private static let lineBreaking: Set<[UInt8]> = Set(
        ["br", "p", "/p", "div", "/div", "tr", "/tr", "li", "/li", "h1", "/h1", "h2", "/h2", "h3", "/h3", "table",
         "/table", "dt", "dd", "/dd"].map { Array($0.utf8) })
    private static let cellEnds: Set<[UInt8]> = Set(["td", "th", "/td", "/th"].map { Array($0.utf8) })
    private static let skipped: Set<[UInt8]> = Set(["script", "style", "head", "title"].map { Array($0.utf8) })

    /// The markup's text with tags and comments taken out (character references still as written).
    private static func reduce(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        var skipping: [UInt8]?
        var href: [UInt8]?
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "<") else {
                if skipping == nil { out.append(byte) }
                index += 1
                continue
            }
            if index + 3 < count, bytes[index + 1] == UInt8(ascii: "!"), bytes[index + 2] == UInt8(ascii: "-"),
                bytes[index + 3] == UInt8(ascii: "-")
            {
                // A comment runs to `-->`, or to the end when it never closes.
                var end = index + 4
                while end + 2 < count,
                    !(bytes[end] == UInt8(ascii: "-") && bytes[end + 1] == UInt8(ascii: "-") && bytes[end + 2] == UInt8(ascii: ">"))
                {
                    end += 1
                }
                index = end + 2 < count ? end + 3 : count
                continue
            }
            // A tag runs to its `>`; one never closed ends the markup.
            var close = index + 1
            while close < count, bytes[close] != UInt8(ascii: ">") { close += 1 }
            let tag = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close])
            index = close + 1
            var name: [UInt8] = []
            for byte in tag {
                let lower = byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0)
                guard (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) || lower == UInt8(ascii: "/"),
                    name.count < 12
                else { break }
                name.append(lower)
            }
            if let open = skipping {
                if name.first == UInt8(ascii: "/"), name.dropFirst().elementsEqual(open) { skipping = nil }
                continue
            }
            if skipped.contains(name) {
                skipping = name
            } else if name == [UInt8(ascii: "a")] {
                href = attribute("href", in: tag)
            } else if name == Array("/a".utf8) {
                if let link = href, !link.isEmpty {
                    out.append(contentsOf: Array(" <".utf8))
                    out.append(contentsOf: link)
                    out.append(contentsOf: Array("> ".utf8))
                }
                href = nil
            } else if lineBreaking.contains(name) {
                out.append(0x0A)
            } else if cellEnds.contains(name) {
                out.append(0x20)
            }
        }
        return out
    }

    /// The value of an attribute in a tag's bytes, quoted or not (its name matched in any case).
    static func attribute(_ name: String, in tag: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let pattern = Array((name + "=").utf8)
        guard tag.count >= pattern.count else { return nil }
        var start: Int?
        for position in 0...(tag.count - pattern.count) {
            var matches = true
            for offset in 0..<pattern.count {
                let byte = tag[position + offset]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != pattern[offset] {
                    matches = false
                    break
                }
            }
            if matches {
                start = position + pattern.count
                break
            }
        }
        guard var index = start else { return nil }
        var value: [UInt8] = []
        if index < tag.count, tag[index] == UInt8(ascii: "\"") || tag[index] == UInt8(ascii: "'") {
            let quote = tag[index]
            index += 1
            while index < tag.count, tag[index] != quote {
                value.append(tag[index])
                index += 1
            }
        } else {
            while index < tag.count, tag[index] != UInt8(ascii: " "), tag[index] != UInt8(ascii: ">") {
                value.append(tag[index])
                index += 1
            }
        }
        return value
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`, `&#NNN;` and `&#xHH;` decoded; anything else kept as
    /// written.
    static func decodeReferences(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return String(decoding: decodeReferences(Array(text.utf8)), as: UTF8.self)
    }

    static func decodeReferences(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "&")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            // The name is at most 9 bytes before its `;`.
            var semicolon = index + 1
            while semicolon < bytes.count, semicolon < index + 10, bytes[semicolon] != UInt8(ascii: ";") { semicolon += 1 }
            guard semicolon < bytes.count, bytes[semicolon] == UInt8(ascii: ";"),
                let decoded = CharacterReference.scalar(named: String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)).map(String.init)
            else {
                out.append(byte)
                index += 1
                continue
            }
            out.append(contentsOf: decoded.utf8)
            index = semicolon + 1
        }
        return out
    }

}
