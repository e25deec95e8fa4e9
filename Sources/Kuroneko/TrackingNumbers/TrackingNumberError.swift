/// Why a string is not a tracking number.
public struct TrackingNumberError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, with the figures a person needs to correct it.
    public enum Reason: Hashable, Sendable {
        case empty
        case invalidCharacter(Character)
        case wrongLength(Int)
        case wrongCheckDigit(found: Int, expected: Int)
        /// Letters that do not make the international form (two letters, nine digits, two letters).
        case notInternational
        /// A valid number of a form the named carrier does not use.
        case notUsedBy(Carrier)
    }

    /// The text as the caller gave it.
    public let input: String
    public let reason: Reason

    /// A stable machine-readable code for the reason.
    public var code: String {
        switch reason {
        case .empty: "empty"
        case .invalidCharacter: "invalid_character"
        case .wrongLength: "wrong_length"
        case .wrongCheckDigit: "wrong_check_digit"
        case .notInternational: "invalid_character"
        case .notUsedBy: "wrong_carrier"
        }
    }

    /// "a tracking number has 12 digits (Yamato Transport, Sagawa Express, Japan Post), 10 (…), …".
    private static let forms: String = {
        let lengths: [(TrackingNumber.Format, String)] = [
            (.twelveDigits, "12 digits"), (.tenDigits, "10"), (.elevenDigits, "11"), (.thirteenDigits, "13"),
        ]
        let parts = lengths.compactMap { format, words -> String? in
            let names = CarrierRegistry.definitions.filter { $0.numberForms.contains { $0.format == format } }
            return names.isEmpty ? nil : words + " (" + names.map(\.englishName).joined(separator: ", ") + ")"
        }
        return "a tracking number has " + parts.joined(separator: ", ") + ", or is international like EN123456785JP"
    }()

    /// The reason in words, without the input: "has 9 digits; a tracking number has 12 digits (…)".
    public var explanation: String {
        switch reason {
        case .empty:
            "is empty; " + Self.forms
        case .invalidCharacter(let character):
            "contains \"\(String(character).visibleInOneLine)\"; " + Self.forms + ", with optional hyphens or spaces"
        case .wrongLength(let count):
            "has \(count) digit\(count == 1 ? "" : "s"); " + Self.forms
        case .wrongCheckDigit(let found, let expected):
            "check digit is \(found), expected \(expected)"
        case .notInternational:
            "is not an international number; expected two letters, nine digits and two letters, like EN123456785JP"
        case .notUsedBy(let carrier):
            "is not a \(carrier.englishName) number; \(carrier.englishName) numbers have "
                + carrier.definition.numberFormsInWords
        }
    }

    public var description: String {
        "\"\(input.visibleInOneLine)\" \(explanation)"
    }
}
