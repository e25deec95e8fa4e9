/// A carrier's page reduced to its markup and the carriers' own fixed words: private by construction. Every
/// text node and every attribute value is replaced by a placeholder of the same shape (a letter or a kana or
/// kanji by `○`, `x`/`X` or `ｘ`/`Ｘ`, a digit by `0` or `０`; spaces and punctuation kept) unless it is a word
/// of ``PageVocabulary`` (labels, headings, status words and the carriers' fixed sentences). Comments,
/// scripts and styles are masked whole; a link keeps its scheme, host and path words but not its query's
/// values; `class`, `id` and the like keep their values when they are plain identifiers. Tag and attribute
/// names stay as written, so the page still shows how it is laid out. What a page nobody has seen holds in a
/// shape nobody foresaw is masked all the same: only what is known to be safe is kept.
public enum PageMasking {
    public static func mask(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        out.reserveCapacity(scalars.count)
        var index = 0
        var rawTextEnd: String?
        while index < scalars.count {
            if let closing = rawTextEnd {
                // A script's or a style's content, up to its end tag, masked whole.
                let end = find(Array("</\(closing)".unicodeScalars), in: scalars, from: index, caseless: true) ?? scalars.count
                appendMasked(units(scalars[index..<end]), keeping: false, to: &out)
                index = end
                rawTextEnd = nil
                continue
            }
            let scalar = scalars[index]
            if scalar == "<", index + 1 < scalars.count {
                let next = scalars[index + 1]
                if starts(scalars, at: index, with: "<!--") {
                    let end = find(Array("-->".unicodeScalars), in: scalars, from: index + 4, caseless: false) ?? scalars.count
                    out.append(contentsOf: "<!--".unicodeScalars)
                    appendMasked(units(scalars[(index + 4)..<end]), keeping: false, to: &out)
                    if end < scalars.count { out.append(contentsOf: "-->".unicodeScalars) }
                    index = min(scalars.count, end + 3)
                    continue
                }
                if next.isASCIILetter || next == "/" || next == "!" || next == "?" {
                    let end = tagEnd(scalars, from: index + 1)
                    let tag = Tag(scalars[(index + 1)..<min(end, scalars.count)])
                    out.append("<")
                    tag.appendMasked(to: &out)
                    if end < scalars.count { out.append(">") }
                    index = end + 1
                    if !tag.closing, ["script", "style", "textarea"].contains(tag.name) { rawTextEnd = tag.name }
                    continue
                }
            }
            // Text, up to the next tag.
            var end = index + 1
            while end < scalars.count, scalars[end] != "<" { end += 1 }
            appendMasked(units(scalars[index..<end]), keeping: true, to: &out)
            index = end
        }
        return String(out)
    }

    // MARK: Text

    /// One character of text as written: itself, or the character reference that stands for it.
    struct TextUnit {
        let scalar: Unicode.Scalar
        let written: ArraySlice<Unicode.Scalar>
    }

    /// The text's characters, each numeric reference read as the character it names (named references other
    /// than the few known stand for themselves, letter by letter).
    static func units(_ text: ArraySlice<Unicode.Scalar>) -> [TextUnit] {
        var units: [TextUnit] = []
        units.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "&", let semicolon = text[index..<min(text.endIndex, index + 12)].firstIndex(of: ";"),
                let scalar = CharacterReference.scalar(named: String(String.UnicodeScalarView(text[(index + 1)..<semicolon])))
            {
                units.append(TextUnit(scalar: scalar, written: text[index...semicolon]))
                index = semicolon + 1
                continue
            }
            units.append(TextUnit(scalar: text[index], written: text[index...index]))
            index += 1
        }
        return units
    }


    /// The units, each word of the vocabulary kept as written (when `keeping`) and every other letter or digit
    /// replaced by its placeholder; spaces, punctuation and symbols stay as written.
    static func appendMasked(_ units: [TextUnit], keeping: Bool, to out: inout String.UnicodeScalarView) {
        var index = 0
        while index < units.count {
            if keeping, let length = PageVocabulary.word(at: index, in: units) {
                for unit in units[index..<(index + length)] { out.append(contentsOf: unit.written) }
                index += length
                continue
            }
            let unit = units[index]
            if let placeholder = placeholder(for: unit.scalar) {
                out.append(contentsOf: placeholder.unicodeScalars)
            } else {
                out.append(contentsOf: unit.written)
            }
            index += 1
        }
    }

    /// What stands for a letter or a digit; `nil` for a space, punctuation or a symbol (kept as written).
    static func placeholder(for scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x30...0x39: return "0"
        case 0xFF10...0xFF19: return "０"
        case 0x41...0x5A: return "X"
        case 0x61...0x7A: return "x"
        case 0xFF21...0xFF3A: return "Ｘ"
        case 0xFF41...0xFF5A: return "ｘ"
        default: break
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return "○"
        case .decimalNumber, .letterNumber, .otherNumber: return "0"
        // Marks belong to the letter before them, which is masked already.
        case .nonspacingMark, .spacingMark, .enclosingMark: return ""
        // Invisible characters could carry anything; a private use or unassigned one too.
        case .format, .privateUse, .unassigned, .surrogate: return ""
        default: return nil
        }
    }

    // MARK: Markup

    private static func starts(_ scalars: [Unicode.Scalar], at index: Int, with text: String) -> Bool {
        scalars[index...].starts(with: text.unicodeScalars)
    }

    /// Where `pattern` next starts (at or after `from`), in any case when `caseless`.
    private static func find(_ pattern: [Unicode.Scalar], in scalars: [Unicode.Scalar], from: Int, caseless: Bool) -> Int? {
        guard let first = pattern.first, scalars.count >= pattern.count else { return nil }
        var index = from
        while index + pattern.count <= scalars.count {
            if same(scalars[index], first, caseless) {
                var matched = true
                for offset in 1..<pattern.count where !same(scalars[index + offset], pattern[offset], caseless) {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    private static func same(_ a: Unicode.Scalar, _ b: Unicode.Scalar, _ caseless: Bool) -> Bool {
        guard caseless, a.isASCII, b.isASCII else { return a == b }
        return a.asciiLower == b.asciiLower
    }

    /// The index of the `>` that ends the tag begun before `from` (quotes respected), or the end.
    private static func tagEnd(_ scalars: [Unicode.Scalar], from: Int) -> Int {
        var index = from
        var quote: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                // A quote opens a value only after `=` (possibly spaced).
                var before = index - 1
                while before > from, scalars[before] == " " { before -= 1 }
                if scalars[before] == "=" { quote = scalar }
            } else if scalar == ">" {
                return index
            }
            index += 1
        }
        return scalars.count
    }

    /// A tag's text between `<` and `>`: its name and attributes, written back with each value masked.
    struct Tag {
        let text: ArraySlice<Unicode.Scalar>
        let name: String
        let closing: Bool

        init(_ text: ArraySlice<Unicode.Scalar>) {
            self.text = text
            closing = text.first == "/"
            let start = closing ? text.index(after: text.startIndex) : text.startIndex
            name = String(String.UnicodeScalarView(text[start...].prefix { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" }))
                .lowercased()
        }

        func appendMasked(to out: inout String.UnicodeScalarView) {
            if text.first == "!" || text.first == "?" {
                // <!DOCTYPE html> and <?xml …?> are kept; any other declaration is masked.
                let lowered = String(String.UnicodeScalarView(text.prefix(8))).lowercased()
                if lowered.hasPrefix("!doctype") || lowered.hasPrefix("?xml") {
                    out.append(contentsOf: text)
                    return
                }
                PageMasking.appendMasked(units(text), keeping: false, to: &out)
                return
            }
            // The name as written, then each attribute: its name as written, its value masked by its kind.
            var index = text.startIndex
            while index < text.endIndex, !Self.isSpace(text[index]), text[index] != "/" || index == text.startIndex {
                out.append(text[index])
                index += 1
            }
            let attributes = Self.attributes(text[index...])
            for piece in attributes {
                switch piece {
                case .raw(let raw): out.append(contentsOf: raw)
                case .value(let attribute, let value, let quote, let closed):
                    if let quote { out.append(quote) }
                    out.append(contentsOf: PageAttribute.masked(value, named: attribute, in: self).unicodeScalars)
                    if let quote, closed { out.append(quote) }
                }
            }
        }

        enum Piece {
            case raw(ArraySlice<Unicode.Scalar>)
            case value(attribute: String, ArraySlice<Unicode.Scalar>, quote: Unicode.Scalar?, closed: Bool)
        }

        static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{C}"
        }

        /// The attributes' text cut into what is written as it is (names, `=`, spaces) and the values.
        static func attributes(_ text: ArraySlice<Unicode.Scalar>) -> [Piece] {
            var pieces: [Piece] = []
            var index = text.startIndex
            var rawStart = index
            var lastName = ""
            while index < text.endIndex {
                let scalar = text[index]
                if isSpace(scalar) || scalar == "/" {
                    index += 1
                    continue
                }
                // An attribute's name.
                let nameStart = index
                while index < text.endIndex, !isSpace(text[index]), text[index] != "=", text[index] != "/" || index == nameStart {
                    index += 1
                }
                lastName = String(String.UnicodeScalarView(text[nameStart..<index])).lowercased()
                var look = index
                while look < text.endIndex, isSpace(text[look]) { look += 1 }
                guard look < text.endIndex, text[look] == "=" else { continue }
                index = look + 1
                while index < text.endIndex, isSpace(text[index]) { index += 1 }
                guard index < text.endIndex else { break }
                let quote: Unicode.Scalar? = text[index] == "\"" || text[index] == "'" ? text[index] : nil
                let valueStart = quote == nil ? index : index + 1
                var valueEnd = valueStart
                if let quote {
                    while valueEnd < text.endIndex, text[valueEnd] != quote { valueEnd += 1 }
                } else {
                    while valueEnd < text.endIndex, !isSpace(text[valueEnd]) { valueEnd += 1 }
                }
                pieces.append(.raw(text[rawStart..<index]))
                pieces.append(
                    .value(attribute: lastName, text[valueStart..<valueEnd], quote: quote, closed: valueEnd < text.endIndex))
                index = quote == nil ? valueEnd : min(text.endIndex, valueEnd + 1)
                rawStart = index
            }
            pieces.append(.raw(text[rawStart..<text.endIndex]))
            return pieces
        }

        /// Whether the tag has the attribute (any value).
        func has(_ attribute: String) -> Bool {
            Self.attributes(text).contains { piece in
                if case .value(let name, _, _, _) = piece { return name == attribute }
                return false
            }
        }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var asciiLower: Unicode.Scalar { ("A"..."Z").contains(self) ? Unicode.Scalar(value + 32)! : self }
}
