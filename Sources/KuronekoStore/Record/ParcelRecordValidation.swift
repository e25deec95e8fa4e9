import Foundation
import Kuroneko

/// The one rule for each part of a parcel record, for the API, the import and the command line alike.
extension ParcelRecord {
    /// The record as stored: every text trimmed and checked, the postcode written `NNN-NNNN`, the ship date
    /// `YYYY-MM-DD`; `nil` when nothing is left. - Throws: ``ParcelRecordError`` naming the part and what is
    /// right.
    public func validated() throws(ParcelRecordError) -> ParcelRecord? {
        typealias Limits = ParcelRecordLimits
        var record = ParcelRecord()
        record.reference = try RecordText.line(reference, field: "reference", limit: Limits.referenceLength)
        if let recipient {
            var checked = Recipient()
            checked.name = try RecordText.line(recipient.name, field: "recipient.name", limit: Limits.nameLength)
            checked.telephone = try RecordText.telephone(recipient.telephone)
            checked.email = try RecordText.email(recipient.email)
            checked.postcode = try RecordText.postcode(recipient.postcode)
            checked.prefecture = try RecordText.line(
                recipient.prefecture, field: "recipient.prefecture", limit: Limits.prefectureLength)
            checked.address = try RecordText.line(recipient.address, field: "recipient.address", limit: Limits.addressLength)
            record.recipient = checked.isEmpty ? nil : checked
        }
        record.shippedOn = try shippedOn.flatMap { text throws(ParcelRecordError) in try RecordText.day(text) }
        record.note = try RecordText.note(note)
        record.handled = handled
        guard fields.count <= Limits.fields else { throw .tooManyFields(fields.count) }
        for (index, field) in fields.enumerated() {
            guard
                let name = try RecordText.line(
                    field.name, field: "fields[\(index)].name", limit: Limits.fieldNameLength)
            else { throw .invalid("fields[\(index)].name", "is empty; every kept column has a name") }
            let value = try RecordText.line(field.value, field: "fields[\(index)].value", limit: Limits.fieldValueLength)
            if let value { record.fields.append(Field(name: name, value: value)) }
        }
        guard !record.isEmpty else { return nil }
        let size = record.json.count
        guard size <= Limits.bytes else { throw .tooLarge(size) }
        return record
    }
}

/// Why a record is refused: one line naming the part and what would be right.
public enum ParcelRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The part (`recipient.telephone`) and what is wrong with it.
    case invalid(String, String)
    case tooManyFields(Int)
    case tooLarge(Int)

    public var description: String {
        switch self {
        case .invalid(let field, let problem): (field.isEmpty ? "record" : "record.\(field)") + " \(problem)"
        case .tooManyFields(let count):
            "record.fields holds \(count) columns; at most \(ParcelRecordLimits.fields) are kept per parcel"
        case .tooLarge(let size):
            "the record is \(size) bytes as JSON; at most \(ParcelRecordLimits.bytes) are kept per parcel"
        }
    }
}

/// Text rules of a record's parts.
enum RecordText {
    /// One line of plain text, trimmed, spaces of every kind made plain; `nil` when empty.
    static func line(_ text: String?, field: String, limit: Int) throws(ParcelRecordError) -> String? {
        try checked(text, field: field, limit: limit, lineBreaks: false)
    }

    /// A note: plain text whose line breaks are kept (CRLF made LF).
    static func note(_ text: String?) throws(ParcelRecordError) -> String? {
        try checked(
            text?.replacingOccurrences(of: "\r\n", with: "\n"), field: "note", limit: ParcelRecordLimits.noteLength,
            lineBreaks: true)
    }

    private static func checked(_ text: String?, field: String, limit: Int, lineBreaks: Bool)
        throws(ParcelRecordError) -> String?
    {
        guard let text else { return nil }
        for scalar in text.unicodeScalars {
            if lineBreaks, scalar == "\n" { continue }
            let bidiControl = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            switch scalar.properties.generalCategory {
            case _ where bidiControl, .control, .lineSeparator, .paragraphSeparator:
                let code = String(scalar.value, radix: 16, uppercase: true)
                throw .invalid(
                    field, "contains a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)); use plain text")
            default: continue
            }
        }
        let spaced = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .spaceSeparator ? " " : $0 }))
        let trimmed = spaced.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= limit, trimmed.utf8.count <= limit * 4 else {
            throw .invalid(field, "is \(trimmed.count) characters long; at most \(limit) are kept")
        }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A telephone as written: digits with hyphens, spaces, parentheses or a leading +, 6 to 15 digits.
    static func telephone(_ text: String?) throws(ParcelRecordError) -> String? {
        guard let text = try line(text, field: "recipient.telephone", limit: ParcelRecordLimits.telephoneLength) else {
            return nil
        }
        let folded = text.precomposedStringWithCompatibilityMapping
        let allowed = Set("0123456789-+() ‐‑–—―−ー")
        let digits = folded.filter { $0.isASCII && $0.isNumber }.count
        guard folded.allSatisfy(allowed.contains), (6...15).contains(digits) else {
            throw .invalid(
                "recipient.telephone", "\"\(text.prefix(40))\" is not a telephone number; expected digits such as 090-1234-5678")
        }
        return text
    }

    static func email(_ text: String?) throws(ParcelRecordError) -> String? {
        guard let text = try line(text, field: "recipient.email", limit: ParcelRecordLimits.emailLength) else {
            return nil
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !text.contains(" ") else {
            throw .invalid("recipient.email", "\"\(text.prefix(60))\" is not an e-mail address; expected name@example.jp")
        }
        return text
    }

    /// Seven digits (full-width, with or without the hyphen or 〒), written `NNN-NNNN`.
    static func postcode(_ text: String?) throws(ParcelRecordError) -> String? {
        guard let text = try line(text, field: "recipient.postcode", limit: 12) else { return nil }
        let folded = text.precomposedStringWithCompatibilityMapping.replacingOccurrences(of: "〒", with: "")
            .trimmingCharacters(in: .whitespaces)
        let digits = folded.filter { $0.isASCII && $0.isNumber }
        guard digits.count == 7, folded.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "-" || $0 == "ー" }) else {
            throw .invalid("recipient.postcode", "\"\(text)\" is not a postcode; expected seven digits such as 150-0001")
        }
        return String(digits.prefix(3)) + "-" + String(digits.suffix(4))
    }

    /// `10:15` or `10:15:30` (seconds may have a fraction and a zone after them).
    private static func isTime(_ text: Substring) -> Bool {
        let pieces = text.trimmingCharacters(in: .whitespaces).prefix(8).split(separator: ":")
        guard (2...3).contains(pieces.count) else { return false }
        return pieces.allSatisfy { (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// A day written `2026-12-01`, `2026/12/1`, `2026.12.01`, `20261201` or `2026年12月1日` (a time after it
    /// left out), as `YYYY-MM-DD`.
    static func day(_ text: String) throws(ParcelRecordError) -> String? {
        guard let text = try line(text, field: "shipped_on", limit: 20) else { return nil }
        var folded = text.precomposedStringWithCompatibilityMapping
        // A time after the day, as e飛伝 writes its 出荷日時 (`2026/12/06 10:15`, `2026-12-06T10:15:30`): not kept.
        if let cut = folded.firstIndex(where: { $0 == " " || $0 == "T" }),
            Self.isTime(folded[folded.index(after: cut)...])
        {
            folded = String(folded[..<cut])
        }
        var parts = folded.split(whereSeparator: { "-/.年月日 ".contains($0) }).map(String.init)
        // Eight digits together, as label tools write a day: 20261206.
        if parts.count == 1, parts[0].count == 8, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber) {
            let digits = parts[0]
            parts = [String(digits.prefix(4)), String(digits.dropFirst(4).prefix(2)), String(digits.suffix(2))]
        }
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), (2000...2100).contains(year),
            let date = JapanDateTime(year: year, month: month, day: day)
        else {
            throw .invalid("shipped_on", "\"\(text)\" is not a day; expected YYYY-MM-DD such as 2026-12-01 (or 20261201)")
        }
        return String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }
}
