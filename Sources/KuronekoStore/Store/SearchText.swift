import Foundation

/// The search rule of the watch list, in one place: a watch's label and number are kept normalised in a
/// column of their own (``stored(label:digits:)``) and what a person types is normalised the same way
/// (``needle(_:)``), so a search is a plain substring test in the database.
///
/// Normalising is: NFKC (full-width letters and digits become ASCII, half-width katakana full-width), lower
/// case, hyphens and spaces between two digits dropped (`3277-5445-9830`, `3277 5445 9830` and
/// `327754459830` are one), and the common variant kanji of names folded to one form (``variants``), so that
/// 髙橋 finds 高橋 and the other way round.
public enum SearchText {
    /// Variant kanji of names and the form each is folded to. Both sides of a search are folded, so any of a
    /// group finds the others.
    public static let variants: [Character: Character] = [
        "髙": "高", "﨑": "崎", "𥔎": "崎", "嵜": "崎", "德": "徳", "邊": "辺", "邉": "辺", "齋": "斎", "齊": "斎",
        "濵": "浜", "濱": "浜", "國": "国", "澤": "沢", "櫻": "桜", "廣": "広", "關": "関", "眞": "真", "冨": "富",
    ]

    /// Dashes a number may be written with (ASCII, the hyphens and minus signs of Unicode, the long vowel
    /// mark typed in place of one after NFKC has made full-width forms ASCII).
    static let dashes: Set<Character> = ["-", "‐", "‑", "‒", "–", "—", "―", "−", "ー", "ｰ"]

    /// The normal form of `text`.
    public static func normalized(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.lowercased()
        let characters = Array(folded)
        var result = ""
        result.reserveCapacity(folded.utf8.count)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            guard isSeparator(character) else {
                result.append(variants[character] ?? character)
                index += 1
                continue
            }
            // A run of hyphens and spaces between two digits is dropped (1878-3456 is 18783456); elsewhere kept.
            var end = index
            while end < characters.count, isSeparator(characters[end]) { end += 1 }
            let betweenDigits =
                index > 0 && characters[index - 1].isASCIIDigit && end < characters.count
                && characters[end].isASCIIDigit
            if !betweenDigits { result.append(contentsOf: characters[index..<end]) }
            index = end
        }
        return result
    }

    static func isSeparator(_ character: Character) -> Bool {
        dashes.contains(character) || character == " " || character == "\u{3000}"
    }

    /// The column's text: the label's normal form and the number's digits, then the record's reference,
    /// recipient name and telephone digits, one to a line (a search never holds a line break, so it never
    /// spans two).
    public static func stored(label: String?, digits: String, record: ParcelRecord? = nil) -> String {
        var text = normalized(label ?? "") + "\n" + digits.lowercased()
        guard let record else { return text }
        for part in [record.reference.map(normalized), record.recipient?.name.map(normalized), record.telephoneDigits]
        {
            if let part { text += "\n" + part }
        }
        return text
    }

    /// What is looked for, or `nil` when `text` holds nothing to look for (only spaces). A telephone typed
    /// with parentheses (`03(1234)5678`) is looked for by its digits, as telephones are kept.
    public static func needle(_ text: String) -> String? {
        let needle = normalized(text.trimmingCharacters(in: .whitespaces))
        if needle.contains("("), needle.allSatisfy({ $0.isASCIIDigit || "()+".contains($0) }) {
            return needle.filter(\.isASCIIDigit)
        }
        return needle.isEmpty ? nil : needle
    }

    /// Whether `text` (as typed) finds a watch with `label`, `digits` and `record`: the database's test, for
    /// code that holds watches already.
    public static func matches(_ text: String, label: String?, digits: String, record: ParcelRecord? = nil) -> Bool {
        guard let needle = needle(text) else { return true }
        return stored(label: label, digits: digits, record: record).contains(needle)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
