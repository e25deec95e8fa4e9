/// A Yamato tracking number (送り状番号): twelve digits, the last a check digit.
///
/// Parse what people type or paste with ``init(parsing:)``; it accepts hyphens, spaces, full-width digits
/// and the dash look-alikes Japanese input methods produce.
public struct TrackingNumber: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The twelve digits, without separators.
    public let digits: String
    /// The same digits as one number: what equality and hashing use (a cache lookup hashes eight bytes,
    /// not a string).
    private let value: UInt64

    /// Parses a number as typed, checking its length and check digit.
    /// - Throws: ``TrackingNumberError`` saying what is wrong with the input.
    public init(parsing input: String) throws(TrackingNumberError) {
        // Most numbers arrive as ASCII digits, often with hyphens (every cache-hit URL): read in one pass.
        if let (digits, value) = Self.twelveASCIIDigitsWithValidCheck(input) {
            self.digits = digits
            self.value = value
            return
        }
        let digits = try Self.normalizedDigits(of: input)
        // Every digit is one byte: counting bytes, not characters, spares the grapheme breaking.
        guard digits.utf8.count == 12 else {
            throw TrackingNumberError(input: input, reason: .wrongLength(digits.utf8.count))
        }
        let expected = Self.checkDigit(forFirstEleven: digits.prefix(11))
        let actual = Int(digits.utf8.last.map { $0 - UInt8(ascii: "0") } ?? 0)
        guard actual == expected else {
            throw TrackingNumberError(input: input, reason: .wrongCheckDigit(found: actual, expected: expected))
        }
        self.digits = digits
        value = Self.value(of: digits)
    }

    /// Reads a number as the tracking page echoes it, without judging its check digit:
    /// Yamato answers numbers with a wrong check digit too (as 伝票番号誤り).
    /// - Throws: ``TrackingNumberError`` when the text is not twelve digits.
    init(echoedByPage text: String) throws(TrackingNumberError) {
        let digits = try Self.normalizedDigits(of: text)
        guard digits.utf8.count == 12 else {
            throw TrackingNumberError(input: text, reason: .wrongLength(digits.utf8.count))
        }
        self.digits = digits
        value = Self.value(of: digits)
    }

    /// Twelve ASCII digits, with hyphens or spaces between them or not, whose check digit is right: the
    /// digits and their value, read in one pass without building anything but the (small) digit string.
    /// `nil` for anything else, which the general path then reads and words its error for.
    private static func twelveASCIIDigitsWithValidCheck(_ input: String) -> (String, UInt64)? {
        var value: UInt64 = 0
        var count = 0
        for byte in input.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                count += 1
                guard count <= 12 else { return nil }
                value = value &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
        }
        guard count == 12, (value / 10) % 7 == value % 10 else { return nil }
        let digits = String(unsafeUninitializedCapacity: 12) { buffer in
            var rest = value
            for index in stride(from: 11, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
            }
            return 12
        }
        return (digits, value)
    }

    private static func value(of digits: String) -> UInt64 {
        digits.utf8.reduce(0) { $0 &* 10 &+ UInt64($1 &- UInt8(ascii: "0")) }
    }

    public static func == (lhs: TrackingNumber, rhs: TrackingNumber) -> Bool {
        lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    /// The number as Yamato prints it: `XXXX-XXXX-XXXX`.
    public var formatted: String {
        let characters = Array(digits)
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    /// The last four digits, for logs and messages that must not reveal the whole number.
    public var masked: String {
        "••••-••••-" + digits.suffix(4)
    }

    public var description: String { formatted }

    public static func < (lhs: TrackingNumber, rhs: TrackingNumber) -> Bool {
        lhs.value < rhs.value
    }

    /// The check digit Yamato uses: the first eleven digits read as one number, modulo 7.
    static func checkDigit(forFirstEleven digits: Substring) -> Int {
        var remainder = 0
        for digit in digits.utf8 {
            remainder = (remainder * 10 + Int(digit - UInt8(ascii: "0"))) % 7
        }
        return remainder
    }

    /// Hyphens and the dash look-alikes Japanese input methods produce; white space is skipped as well.
    private static let dashes: Set<Unicode.Scalar> = ["-", "－", "ー", "‐", "−", "―", "‑", "–", "—", "ｰ"]

    /// The digits of input made only of ASCII digits, hyphens and spaces, copied once; `nil` for anything
    /// else (the general path then reads it, and words its errors).
    private static func asciiDigits(of input: String) -> String? {
        var count = 0
        for byte in input.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): count += 1
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
        }
        guard count > 0, count <= 32 else { return nil }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var written = 0
            for byte in input.utf8 where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                buffer[written] = byte
                written += 1
            }
            return written
        }
    }

    private static func normalizedDigits(of input: String) throws(TrackingNumberError) -> String {
        // Most numbers arrive as twelve ASCII digits, often with hyphens (every cache-hit URL).
        if input.utf8.count == 12, input.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return input }
        if let digits = asciiDigits(of: input) { return digits }
        var digits = ""
        digits.reserveCapacity(12)
        for scalar in input.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39:
                digits.unicodeScalars.append(scalar)
            case 0xFF10...0xFF19:
                digits.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value - 0xFF10) + UInt8(ascii: "0")))
            default:
                guard scalar.properties.isWhitespace || dashes.contains(scalar) else {
                    throw TrackingNumberError(input: input, reason: .invalidCharacter(Character(scalar)))
                }
            }
        }
        guard !digits.isEmpty else {
            throw TrackingNumberError(input: input, reason: .empty)
        }
        return digits
    }
}

/// A number in JSON is its twelve digits as a string (`"327754459830"`); decoding accepts whatever
/// ``TrackingNumber/init(parsing:)`` accepts and refuses, with its message, what it refuses.
extension TrackingNumber: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(digits)
    }
}
