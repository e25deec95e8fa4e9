import Foundation

/// Masks a carrier's page so that a page that was not understood can be kept and shared to show what changed.
/// The first pass, ``PageMasking``, keeps only the markup and the carriers' own words (private by
/// construction); then, as a second pass, what is recognised as personal is masked again:
/// - every run of ten or more digits (ASCII or full width, runs joined by hyphens counted together: tracking
///   numbers, telephone and fax numbers) becomes zeros of the same shape, in text, attributes and links alike;
/// - the digits after 〒 (a postcode) become zeros;
/// - the numbers the page was asked for become zeros in every form they are written in (bare, 4-4-4, spaced);
/// - in text between tags, a name (text holding 様 or 殿) and the text following a label of a person or a place
///   (お届け先, ご依頼主, 差出人, 受取人, お名前, 氏名, 住所, …) become ○, one per character, spaces kept.
/// Dates, times, statuses, class names and everything else are left as they are.
public enum PageRedaction {
    /// The labels whose following text is a person's name or address.
    public static let personalLabels = [
        "お届け先", "ご依頼主", "依頼主", "差出人", "受取人", "お名前", "氏名", "住所", "ご住所", "送り主", "荷送人", "荷受人",
        "お届け先名", "お届け先住所",
    ]

    /// The page masked, in its own encoding; `nil` when the bytes cannot be decoded and encoded back exactly
    /// (then nothing of the body should be kept).
    public static func redact(_ body: Data, charset: String?, numbers: [TrackingNumber]) -> Data? {
        guard let encoding = encoding(of: body, charset: charset), let text = String(data: body, encoding: encoding),
            text.data(using: encoding) == body
        else { return nil }
        return redact(text, numbers: numbers).data(using: encoding)
    }

    /// The text masked: first by ``PageMasking`` (only markup and the carriers' words kept), then by the rules
    /// above as a second pass.
    public static func redact(_ text: String, numbers: [TrackingNumber]) -> String {
        var scalars = Array(PageMasking.mask(text).unicodeScalars)
        maskNumbers(&scalars, numbers: numbers)
        maskDigitRuns(&scalars)
        maskPostcodes(&scalars)
        maskPersonalText(&scalars)
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    /// A page's address masked as a link in a kept page is: scheme, host and path words kept, the query's
    /// values and the fragment masked in their shape, the asked numbers zeroed.
    public static func redactAddress(_ url: String, numbers: [TrackingNumber]) -> String {
        var scalars = Array(PageAttribute.maskedAddress(url).unicodeScalars)
        maskNumbers(&scalars, numbers: numbers)
        maskDigitRuns(&scalars)
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    static func encoding(of body: Data, charset: String?) -> String.Encoding? {
        let named = (charset ?? declaredCharset(in: body) ?? "").lowercased()
        if ["shift_jis", "shift-jis", "sjis", "windows-31j", "cp932", "x-sjis", "ms_kanji"].contains(named) {
            return .shiftJIS
        }
        if ["euc-jp", "x-euc-jp"].contains(named) { return .japaneseEUC }
        if named.isEmpty || named == "utf-8" || named == "utf8" { return String(data: body, encoding: .utf8) == nil ? nil : .utf8 }
        return nil
    }

    /// The charset a `<meta>` names in the first 2 KiB, if any.
    static func declaredCharset(in body: Data) -> String? {
        let head = String(decoding: body.prefix(2_048), as: UTF8.self).lowercased()
        guard let range = head.range(of: "charset=") else { return nil }
        let rest = head[range.upperBound...].drop { $0 == "\"" || $0 == "'" }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("\u{FF10}"..."\u{FF19}").contains(scalar)
    }

    private static func isJoiner(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "-" || scalar == "\u{FF0D}" || scalar == "\u{2010}" || scalar == "\u{2212}"
    }

    private static func zero(_ scalars: inout [Unicode.Scalar], at index: Int) {
        if ("0"..."9").contains(scalars[index]) { scalars[index] = "0" }
        if ("\u{FF10}"..."\u{FF19}").contains(scalars[index]) { scalars[index] = "\u{FF10}" }
    }

    /// Runs of digits joined by hyphens, ten or more digits in all.
    private static func maskDigitRuns(_ scalars: inout [Unicode.Scalar]) {
        var index = 0
        while index < scalars.count {
            guard isDigit(scalars[index]) else {
                index += 1
                continue
            }
            var end = index
            var digits = 0
            while end < scalars.count {
                if isDigit(scalars[end]) {
                    digits += 1
                    end += 1
                } else if isJoiner(scalars[end]), end + 1 < scalars.count, isDigit(scalars[end + 1]) {
                    end += 1
                } else {
                    break
                }
            }
            if digits >= 10 { for position in index..<end { zero(&scalars, at: position) } }
            index = end
        }
    }

    /// The digits after 〒 (and a space), hyphen included: `〒116-0014`.
    private static func maskPostcodes(_ scalars: inout [Unicode.Scalar]) {
        for index in scalars.indices where scalars[index] == "〒" {
            var position = index + 1
            while position < scalars.count, scalars[position] == " " || scalars[position] == "\u{3000}" { position += 1 }
            while position < scalars.count, isDigit(scalars[position]) || isJoiner(scalars[position]) {
                zero(&scalars, at: position)
                position += 1
            }
        }
    }

    /// The asked numbers in the forms a page writes them: bare, 4-4-4 and spaced.
    private static func maskNumbers(_ scalars: inout [Unicode.Scalar], numbers: [TrackingNumber]) {
        for number in numbers {
            var forms = [number.digits, number.formatted, number.formatted.replacingOccurrences(of: "-", with: " ")]
            forms = Array(Set(forms.filter { $0.count >= 6 }))
            for form in forms {
                let needle = Array(form.unicodeScalars)
                var index = 0
                while index + needle.count <= scalars.count {
                    if scalars[index..<(index + needle.count)].elementsEqual(needle) {
                        for position in index..<(index + needle.count) {
                            if isDigit(scalars[position]) {
                                zero(&scalars, at: position)
                            } else if scalars[position].properties.isAlphabetic {
                                scalars[position] = "X"
                            }
                        }
                        index += needle.count
                    } else {
                        index += 1
                    }
                }
            }
        }
    }

    /// Names (text with 様 or 殿) and the text after a personal label, in text between tags; character
    /// references are read as the characters they stand for (Sagawa writes its Japanese as `&#27096;`).
    private static func maskPersonalText(_ scalars: inout [Unicode.Scalar]) {
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(scalars.count)
        var index = 0
        var afterLabel = false
        var skipping: String?
        while index < scalars.count {
            if scalars[index] == "<" {
                // A tag (or comment); the text of <script> and <style> is not text.
                let end = scalars[index...].firstIndex(of: ">") ?? scalars.count - 1
                let tag = String(String.UnicodeScalarView(scalars[index...end])).lowercased()
                if let open = skipping {
                    if tag.hasPrefix("</" + open) { skipping = nil }
                } else if tag.hasPrefix("<script") || tag.hasPrefix("<style") {
                    skipping = tag.hasPrefix("<script") ? "script" : "style"
                }
                out += scalars[index...end]
                index = end + 1
                continue
            }
            let end = scalars[index...].firstIndex(of: "<") ?? scalars.count
            defer { index = end }
            var units = Self.units(scalars[index..<end])
            let text = String(String.UnicodeScalarView(units.map { $0.character ?? " " }))
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if skipping != nil || trimmed.isEmpty {
                out += scalars[index..<end]
                continue
            }
            let isLabel = personalLabels.contains { trimmed.hasPrefix($0) } && trimmed.count <= 12
            if afterLabel || trimmed.contains("様") || trimmed.contains("殿") { mask(&units, from: 0) }
            // A label's value may sit on the same text (お届け先：山田様) or in the next.
            afterLabel = isLabel
            if isLabel, let colon = units.firstIndex(where: { $0.character == "：" || $0.character == ":" }),
                units[(colon + 1)...].contains(where: { !($0.character?.properties.isWhitespace ?? true) })
            {
                mask(&units, from: colon + 1)
                afterLabel = false
            }
            for unit in units { out += unit.raw }
        }
        scalars = out
    }

    /// One character of text as written: itself, or a character reference (`&#27096;`, `&#x69D8;`, `&nbsp;`).
    private struct TextUnit {
        var raw: [Unicode.Scalar]
        /// What it stands for; `nil` for a named reference other than the few known here.
        var character: Unicode.Scalar?
    }

    private static func units(_ text: ArraySlice<Unicode.Scalar>) -> [TextUnit] {
        var units: [TextUnit] = []
        var position = text.startIndex
        while position < text.endIndex {
            if text[position] == "&", let semicolon = text[position...].prefix(12).firstIndex(of: ";") {
                let raw = Array(text[position...semicolon])
                let name = String(String.UnicodeScalarView(raw.dropFirst().dropLast()))
                units.append(TextUnit(raw: raw, character: CharacterReference.scalar(named: name)))
                position = semicolon + 1
            } else {
                units.append(TextUnit(raw: [text[position]], character: text[position]))
                position += 1
            }
        }
        return units
    }

    /// Every character from `start` on becomes ○ (a reference becomes `&#9675;`) but spaces, 様 and 殿, so the
    /// text keeps its shape; a named reference other than the known ones is left as it is.
    private static func mask(_ units: inout [TextUnit], from start: Int) {
        for position in units.indices where position >= start {
            guard let character = units[position].character,
                !(character.properties.isWhitespace || character == "様" || character == "殿")
            else { continue }
            units[position].raw = units[position].raw.count > 1 ? Array("&#9675;".unicodeScalars) : ["○"]
        }
    }
}
