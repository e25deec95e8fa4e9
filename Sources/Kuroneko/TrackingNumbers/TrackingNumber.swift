/// A parcel's tracking number, in one of the forms Japan's carriers print:
///
/// - 12 digits, the last the first eleven modulo 7 (Yamato's 送り状番号, Sagawa and ゆうパック alike);
/// - 10, 11 or 13 digits (11 with the same modulo-7 check at Japan Post; a carrier whose check digit is not
///   known takes any);
/// - `EN123456785JP`: an international (UPU S10) number, its ninth digit checked by the S10 weights.
///
/// Which carriers use which form is each carrier's ``CarrierDefinition``; a length is accepted when a
/// registered carrier uses it, and a wrong check digit refused unless a carrier of that length has no known
/// check. Parse what people type or paste with ``init(parsing:)``; it accepts hyphens, spaces, full-width
/// digits and letters, and the dash look-alikes Japanese input methods produce. ``candidates`` says which
/// carriers may know the number.
public struct TrackingNumber: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number's forms.
    public enum Format: Sendable, Hashable {
        case twelveDigits, tenDigits, elevenDigits, thirteenDigits
        /// Two letters, nine digits, two letters (UPU S10).
        case international
    }

    /// The number without separators: its digits, or for an international number its letters and
    /// digits in upper case (`EN418273650JP`).
    public let digits: String
    /// The same number as one integer (its form in the top bits): what equality and hashing use, so a
    /// cache lookup hashes eight bytes, not a string.
    private let value: UInt64

    private static let lengthShift: UInt64 = 50
    private static let internationalFlag: UInt64 = 1 << 62

    /// Parses a number as typed, checking its form and check digit.
    /// - Throws: ``TrackingNumberError`` saying what is wrong with the input.
    public init(parsing input: String) throws(TrackingNumberError) {
        // Most numbers arrive as twelve ASCII digits, often with hyphens (every cache-hit URL): one pass.
        if let (digits, value) = Self.twelveASCIIDigitsWithValidCheck(input) {
            self.init(digits: digits, value: value)
            return
        }
        let text = try Self.normalized(input)
        if text.utf8.first.map({ $0 >= UInt8(ascii: "A") }) == true {
            try self.init(international: text, input: input, checked: true)
            return
        }
        let count = text.utf8.count
        guard (10...13).contains(count) else { throw TrackingNumberError(input: input, reason: .wrongLength(count)) }
        self.init(digits: text, value: Self.value(ofDigits: text))
        let forms = CarrierRegistry.definitions.flatMap(\.numberForms).filter { $0.format == format }
        guard !forms.isEmpty else { throw TrackingNumberError(input: input, reason: .wrongLength(count)) }
        if !forms.contains(where: { $0.accepts(self) }) { try Self.requireMod7(text, input: input) }
    }

    /// Parses a number as typed for one carrier: as ``init(parsing:)``, and of a form that carrier uses.
    public init(parsing input: String, for carrier: Carrier) throws(TrackingNumberError) {
        try self.init(parsing: input)
        guard carrier.definition.accepts(self) else {
            if carrier.definition.numberForms.contains(where: { $0.format == format && $0.check == .mod7 }) {
                try Self.requireMod7(digits, input: input)
            }
            throw TrackingNumberError(input: input, reason: .notUsedBy(carrier))
        }
    }

    /// Reads a number as a tracking page echoes it, without judging its check digit: carriers answer
    /// numbers with a wrong check digit too (Yamato as 伝票番号誤り).
    /// - Throws: ``TrackingNumberError`` when the text is none of the forms.
    init(echoedByPage text: String) throws(TrackingNumberError) {
        let normalized = try Self.normalized(text)
        if normalized.utf8.first.map({ $0 >= UInt8(ascii: "A") }) == true {
            try self.init(international: normalized, input: text, checked: false)
            return
        }
        guard (10...13).contains(normalized.utf8.count) else {
            throw TrackingNumberError(input: text, reason: .wrongLength(normalized.utf8.count))
        }
        self.init(digits: normalized, value: Self.value(ofDigits: normalized))
    }

    /// Reads a page's 12-digit number as Yamato echoes it (the page of a 12-digit form only).
    init(echoedByYamato text: String) throws(TrackingNumberError) {
        try self.init(echoedByPage: text)
        guard digits.utf8.count == 12 else { throw TrackingNumberError(input: text, reason: .wrongLength(digits.utf8.count)) }
    }

    private init(digits: String, value: UInt64) {
        self.digits = digits
        self.value = value
    }

    private init(international text: String, input: String, checked: Bool) throws(TrackingNumberError) {
        let bytes = Array(text.utf8)
        func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard bytes.count == 13, isLetter(bytes[0]), isLetter(bytes[1]), bytes[2..<11].allSatisfy(isDigit),
            isLetter(bytes[11]), isLetter(bytes[12])
        else {
            throw TrackingNumberError(input: input, reason: .notInternational)
        }
        let serial = bytes[2..<10].map { Int($0 - UInt8(ascii: "0")) }
        let found = Int(bytes[10] - UInt8(ascii: "0"))
        let expected = Self.s10CheckDigit(serial)
        if checked, found != expected {
            throw TrackingNumberError(input: input, reason: .wrongCheckDigit(found: found, expected: expected))
        }
        let letters = [bytes[0], bytes[1], bytes[11], bytes[12]].reduce(UInt64(0)) {
            $0 * 26 + UInt64($1 - UInt8(ascii: "A"))
        }
        let number = bytes[2..<11].reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
        self.init(digits: text, value: Self.internationalFlag | (letters * 1_000_000_000 + number))
    }

    /// The form of the number.
    public var format: Format {
        if value & Self.internationalFlag != 0 { return .international }
        switch value >> Self.lengthShift {
        case 10: return .tenDigits
        case 11: return .elevenDigits
        case 13: return .thirteenDigits
        default: return .twelveDigits
        }
    }

    /// The carriers that may know the number, in the order they are asked (the registry's: a 12-digit number
    /// at Yamato first, then Sagawa, then Japan Post; carriers without a known check digit last).
    public var candidates: [Carrier] {
        CarrierRegistry.candidates(for: self)
    }

    /// Whether the last digit is the others modulo 7 (the 12- and 11-digit forms' check).
    public var passesMod7: Bool {
        guard format == .twelveDigits || format == .elevenDigits, let last = digits.utf8.last else { return false }
        return Self.checkDigit(forFirstEleven: digits.dropLast()) == Int(last - UInt8(ascii: "0"))
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
        return (digits, (12 << lengthShift) | value)
    }

    private static func value(ofDigits digits: String) -> UInt64 {
        let number = digits.utf8.reduce(UInt64(0)) { $0 &* 10 &+ UInt64($1 &- UInt8(ascii: "0")) }
        return (UInt64(digits.utf8.count) << lengthShift) | number
    }

    private static func requireMod7(_ digits: String, input: String) throws(TrackingNumberError) {
        let expected = checkDigit(forFirstEleven: digits.dropLast())
        let actual = Int(digits.utf8.last.map { $0 - UInt8(ascii: "0") } ?? 0)
        guard actual == expected else {
            throw TrackingNumberError(input: input, reason: .wrongCheckDigit(found: actual, expected: expected))
        }
    }

    public static func == (lhs: TrackingNumber, rhs: TrackingNumber) -> Bool {
        lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    /// The number as its carrier prints it: `XXXX-XXXX-XXXX` for 12 digits, `XXX-XX-XXXXX-X` for a 書留
    /// number, the rest as they are.
    public var formatted: String {
        let characters = Array(digits)
        switch format {
        case .twelveDigits:
            return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
        case .elevenDigits:
            return String(characters[0..<3]) + "-" + String(characters[3..<5]) + "-" + String(characters[5..<10])
                + "-" + String(characters[10])
        case .tenDigits, .thirteenDigits, .international:
            return digits
        }
    }

    /// The last four characters, for logs and messages that must not reveal the whole number.
    public var masked: String {
        format == .twelveDigits ? "••••-••••-" + digits.suffix(4) : "••••" + digits.suffix(4)
    }

    public var description: String { formatted }

    public static func < (lhs: TrackingNumber, rhs: TrackingNumber) -> Bool {
        lhs.value < rhs.value
    }

    /// The check digit of the 12- and 11-digit forms: the digits before it read as one number, modulo 7.
    static func checkDigit(forFirstEleven digits: Substring) -> Int {
        var remainder = 0
        for digit in digits.utf8 {
            remainder = (remainder * 10 + Int(digit - UInt8(ascii: "0"))) % 7
        }
        return remainder
    }

    /// The UPU S10 check digit of an eight-digit serial: weights 8 6 4 2 3 5 9 7, then 11 less the sum
    /// modulo 11, where 10 gives 0 and 11 gives 5.
    static func s10CheckDigit(_ serial: [Int]) -> Int {
        let weights = [8, 6, 4, 2, 3, 5, 9, 7]
        let sum = zip(serial, weights).reduce(0) { $0 + $1.0 * $1.1 }
        let check = 11 - sum % 11
        return check == 10 ? 0 : check == 11 ? 5 : check
    }

    /// Hyphens and the dash look-alikes Japanese input methods produce; white space is skipped as well.
    private static let dashes: Set<Unicode.Scalar> = ["-", "－", "ー", "‐", "−", "―", "‑", "–", "—", "ｰ"]

    /// The input's digits and (upper-cased) letters without separators: full-width forms folded to ASCII,
    /// at most 32 kept (a longer input is refused by its length).
    private static func normalized(_ input: String) throws(TrackingNumberError) -> String {
        if input.utf8.count == 12, input.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return input }
        var text = ""
        text.reserveCapacity(13)
        var count = 0
        for scalar in input.unicodeScalars {
            let ascii: UInt32
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A: ascii = scalar.value
            case 0x61...0x7A: ascii = scalar.value - 0x20
            case 0xFF10...0xFF19: ascii = scalar.value - 0xFF10 + 0x30
            case 0xFF21...0xFF3A: ascii = scalar.value - 0xFF21 + 0x41
            case 0xFF41...0xFF5A: ascii = scalar.value - 0xFF41 + 0x41
            default:
                guard scalar.properties.isWhitespace || dashes.contains(scalar) else {
                    throw TrackingNumberError(input: input, reason: .invalidCharacter(Character(scalar)))
                }
                continue
            }
            count += 1
            if count <= 14, let kept = Unicode.Scalar(ascii) { text.unicodeScalars.append(kept) }
        }
        guard count > 0 else { throw TrackingNumberError(input: input, reason: .empty) }
        let letters = text.utf8.filter { $0 >= UInt8(ascii: "A") }.count
        if letters == 0 {
            guard count <= 13 else { throw TrackingNumberError(input: input, reason: .wrongLength(count)) }
            return text
        }
        // Letters belong only to an international number: two at each end.
        let bytes = Array(text.utf8)
        let atEnds = bytes.count == 13 && bytes.prefix(2).allSatisfy { $0 >= 65 } && bytes.suffix(2).allSatisfy { $0 >= 65 }
        guard atEnds, letters == 4 else {
            let first = input.first { $0.isLetter } ?? "?"
            throw TrackingNumberError(input: input, reason: bytes.count == 13 ? .notInternational : .invalidCharacter(first))
        }
        return text
    }
}

/// A number in JSON is its text as a string (`"327754459830"`, `"EN418273650JP"`); decoding accepts
/// whatever ``TrackingNumber/init(parsing:)`` accepts and refuses, with its message, what it refuses.
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
