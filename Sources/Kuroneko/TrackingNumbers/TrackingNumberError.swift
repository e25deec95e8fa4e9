/// Why a string is not a Yamato tracking number.
public struct TrackingNumberError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, with the figures a person needs to correct it.
    public enum Reason: Hashable, Sendable {
        case empty
        case invalidCharacter(Character)
        case wrongLength(Int)
        case wrongCheckDigit(found: Int, expected: Int)
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
        }
    }

    /// The reason in words, without the input: "has 11 digits; a Yamato number has 12".
    public var explanation: String {
        switch reason {
        case .empty:
            "is empty; a Yamato number has 12 digits"
        case .invalidCharacter(let character):
            "contains \"\(character)\"; a Yamato number has only digits, with optional hyphens or spaces"
        case .wrongLength(let count):
            "has \(count) digit\(count == 1 ? "" : "s"); a Yamato number has 12"
        case .wrongCheckDigit(let found, let expected):
            "check digit is \(found), expected \(expected)"
        }
    }

    public var description: String {
        "\"\(input)\" \(explanation)"
    }
}
