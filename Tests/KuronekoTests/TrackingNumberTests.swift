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
        arguments: [("1234-5678-9", 9), ("1", 1), ("12345678901234", 14), ("１２３４５６７８９０１２３４", 14)])
    func wrongLength(input: String, count: Int) {
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: input) }
        #expect(error?.reason == .wrongLength(count))
        #expect(error?.explanation.hasPrefix("has \(count) digit\(count == 1 ? "" : "s"); a tracking number has 12") == true)
    }

    @Test("each form gives its candidates in the registry's order: those with a check digit first")
    func forms() throws {
        #expect(try TrackingNumber(parsing: "3277-5445-9830").candidates == [.yamato, .sagawa, .japanPost])
        #expect(try TrackingNumber(parsing: "1234567890").candidates == [.sagawa, .seino])
        #expect(try TrackingNumber(parsing: "312-12-38385-6").candidates == [.japanPost, .fukuyama])
        #expect(try TrackingNumber(parsing: "312-12-38385-6").formatted == "312-12-38385-6")
        #expect(try TrackingNumber(parsing: "1234567890123").candidates == [.japanPost])
        #expect(try TrackingNumber(parsing: "en 418 273 650 jp").digits == "EN418273650JP")
        #expect(try TrackingNumber(parsing: "ＥＮ４１８２７３６５０ＪＰ").candidates == [.japanPost])
        // The same digits in two forms are two numbers.
        #expect(try TrackingNumber(parsing: "1234567890") != TrackingNumber(parsing: "0123456789"))
    }

    @Test("the 書留 check digit is the first ten digits modulo 7; 11 digits that fail it are only Fukuyama's")
    func registeredMailCheckDigit() throws {
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "31212383850", for: .japanPost) }
        #expect(error?.reason == .wrongCheckDigit(found: 0, expected: 6))
        // Fukuyama's numbers have 11 digits and no public check digit.
        #expect(try TrackingNumber(parsing: "31212383850").candidates == [.fukuyama])
        // No carrier takes 12 digits without the check: a typo there is still refused.
        let twelve = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "327754459831") }
        #expect(twelve?.reason == .wrongCheckDigit(found: 1, expected: 0))
    }

    @Test("the UPU S10 check digit: weights 8 6 4 2 3 5 9 7, 11 less the sum mod 11, 10 → 0 and 11 → 5")
    func s10CheckDigit() throws {
        #expect(TrackingNumber.s10CheckDigit([4, 7, 3, 1, 2, 4, 8, 2]) == 9)  // the standard's worked example
        for real in ["CI076369983JP", "EN357239493JP", "RX067132330JP", "EN157656352JP", "CN022918231JP"] {
            #expect(throws: Never.self) { try TrackingNumber(parsing: real) }
        }
        let error = #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "EN357239494JP") }
        #expect(error?.reason == .wrongCheckDigit(found: 4, expected: 3))
        #expect(throws: TrackingNumberError(input: "E1357239493JP", reason: .notInternational)) {
            try TrackingNumber(parsing: "E1357239493JP")
        }
    }

    @Test("a carrier named refuses forms it does not use")
    func carrierForms() throws {
        #expect(throws: TrackingNumberError(input: "1234567890", reason: .notUsedBy(.yamato))) {
            try TrackingNumber(parsing: "1234567890", for: .yamato)
        }
        #expect(try TrackingNumber(parsing: "EN418273650JP", for: .japanPost).format == .international)
        #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "EN418273650JP", for: .sagawa) }
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

    @Test("an error shows control and format characters as \\u{…}: a terminal escape or a bidi override typed or read is never printed raw")
    func visibleErrors() {
        for (input, shown) in [("4471\u{1B}[31m0412", "4471\\u{1b}[31m0412"), ("3277\u{202E}5445", "3277\\u{202e}5445")] {
            #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: input) }
            do {
                _ = try TrackingNumber(parsing: input)
            } catch {
                let line = "\(error)"
                #expect(line.hasPrefix("\"\(shown)\""), "\(line)")
                #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
            }
        }
        #expect("受け取り\u{2028}済み".visibleInOneLine == "受け取り\\u{2028}済み")
    }
}
