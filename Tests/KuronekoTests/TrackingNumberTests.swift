import KuronekoTestSupport
import Testing

@testable import Kuroneko

@Suite("Tracking numbers")
struct TrackingNumberTests {
    @Test(
        "accepts what people type or paste",
        arguments: [
            "327754459830", "3277-5445-9830", "3277 5445 9830", " 3277-5445-9830\n", "３２７７－５４４５－９８３０",
            "3277ー5445ー9830", "3277‐5445‐9830", "3277−5445−9830", "3277―5445―9830", "3277　5445　9830",
        ])
    func acceptsTypedForms(input: String) throws {
        let number = try TrackingNumber(parsing: input)
        #expect(number.digits == "327754459830")
        #expect(number.formatted == "3277-5445-9830")
    }

    @Test("the check digit is the first eleven digits modulo 7")
    func checkDigit() {
        #expect(TrackingNumber.checkDigit(forFirstEleven: "12345678901") == 3)
        #expect(TrackingNumber.checkDigit(forFirstEleven: "99999999999") == 4)
        #expect(TrackingNumber.checkDigit(forFirstEleven: "32775445983") == 0)
        #expect(TrackingNumber.checkDigit(forFirstEleven: "00000000000") == 0)
    }

    @Test("a wrong check digit says which digit was expected")
    func wrongCheckDigit() {
        #expect(throws: TrackingNumberError(input: "1234-5678-9012", reason: .wrongCheckDigit(found: 2, expected: 3))) {
            try TrackingNumber(parsing: "1234-5678-9012")
        }
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "123456789015") }
        #expect(error?.explanation == "check digit is 5, expected 3")
        #expect(error?.code == "wrong_check_digit")
    }

    @Test(
        "a wrong length says how many digits there are",
        arguments: [("1234-5678-901", 11), ("1", 1), ("1234567890123", 13), ("１２３４５６７８９０１２３４", 14)])
    func wrongLength(input: String, count: Int) {
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: input) }
        #expect(error?.reason == .wrongLength(count))
        #expect(error?.explanation == "has \(count) digit\(count == 1 ? "" : "s"); a Yamato number has 12")
    }

    @Test("letters and symbols are named", arguments: [("12345678901x", "x"), ("1234/5678/9012", "/"), ("a", "a")])
    func invalidCharacter(input: String, character: Character) {
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: input) }
        #expect(error?.reason == .invalidCharacter(character))
        #expect(error?.description.contains("\"\(input)\"") == true)
    }

    @Test("empty input and bare separators are refused", arguments: ["", "   ", "--", "－－－"])
    func empty(input: String) {
        #expect(throws: TrackingNumberError(input: input, reason: .empty)) { try TrackingNumber(parsing: input) }
    }

    @Test("masking keeps only the last four digits")
    func masked() throws {
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        #expect(number.masked == "••••-••••-9830")
        #expect(!number.masked.contains("3277"))
    }
}
