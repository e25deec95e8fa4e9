import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The shipping-mail corpus (Tests/Fixtures/mail, written by its make_corpus.py from the facts): every mail
/// read, every finding exactly as expected, nothing more.
@Suite("Shipping mails", .timeLimit(.minutes(10)))
struct ShippingMailTests {
    static let directory = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/mail")

    static var cases: [String] {
        ((try? JSON(data: Data(contentsOf: directory.appendingPathComponent("expected.json"))))?.keys ?? []).sorted()
    }

    /// A finding as the corpus writes it.
    static func json(_ parcel: FoundParcel) throws -> JSON {
        let object: [String: Any] = [
            "number": parcel.number.digits, "carrier": parcel.carrier?.rawValue ?? NSNull(), "shop": parcel.shop ?? NSNull(),
            "order": parcel.order ?? NSNull(), "evidence": parcel.evidence.map(\.rawValue),
        ]
        return try JSON(data: try JSONSerialization.data(withJSONObject: object))
    }

    @Test("each mail of the corpus gives exactly its expected parcels", arguments: cases)
    func corpus(name: String) throws {
        let expected = try #require(try JSON(data: Data(contentsOf: Self.directory.appendingPathComponent("expected.json")))[name])
        let raw = try Data(contentsOf: Self.directory.appendingPathComponent("\(name).eml"))
        let mail = ShippingMailReader.read(raw)
        let found = try mail.parcels.map(Self.json)
        #expect(found == expected["parcels"]?.elements ?? [], "\(name)")
        #expect(mail.deliveredWithoutNumber == expected["no_trackable"]?.string, "\(name)")
        #expect(mail.messageID?.hasSuffix("@corpus.kuroneko.test") == true)
        #expect(mail.problem == nil)
    }
}

/// Mails that are not shipping notices (Tests/Fixtures/mail/ordinary, written by its make_ordinary.py): each holds a
/// number a careless reader would take, and none is a parcel.
@Suite("Ordinary mails", .timeLimit(.minutes(10)))
struct OrdinaryMailTests {
    static let directory = ShippingMailTests.directory.appendingPathComponent("ordinary")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".eml") }.sorted()
    }

    @Test("at least 30 ordinary mails")
    func enough() {
        #expect(Self.names.count >= 30)
    }

    @Test("an ordinary mail yields no parcel", arguments: names)
    func none(name: String) throws {
        let mail = ShippingMailReader.read(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        #expect(mail.problem == nil)
        #expect(!mail.subject.isEmpty, "\(name) was not read")
        #expect(mail.parcels.isEmpty, "\(name): \(mail.parcels.map { "\($0.number.digits) \($0.evidence)" })")
    }
}

/// Who the parcel comes from when the mail says it only in its From: a shop on Rakuten by its own name.
@Suite("The shop a mail names")
struct MailShopTests {
    @Test func rakutenShopFromItsSender() {
        let mail = """
            From: =?UTF-8?B?55m954yr5pu45bqX?= <shironeko@shop.rakuten.co.jp>
            Subject: =?UTF-8?B?55m654CB44Gu44GK55+l44KJ44Gb?=
            Content-Type: text/plain; charset=utf-8

            [注文番号] 402853-20261201-0220534167
            [お荷物伝票番号] 日本郵便 2613-0049-8270
            """.replacingOccurrences(of: "\n", with: "\r\n")
        let parcels = ShippingMailReader.read(Data(mail.utf8)).parcels
        #expect(parcels.map(\.shop) == ["白猫書店"])
        #expect(parcels.map(\.order) == ["402853-20261201-0220534167"])
        #expect(parcels.map(\.product) == [nil])
        // What was ordered, when the mail names it.
        let named = mail.replacingOccurrences(of: "[注文番号]", with: "商品名：冬用ブーツ 24cm\r\n[注文番号]")
        #expect(ShippingMailReader.read(Data(named.utf8)).parcels.map(\.product) == ["冬用ブーツ 24cm"])
        let priced = mail.replacingOccurrences(of: "[注文番号]", with: "品名：1点\r\n[注文番号]")
        #expect(ShippingMailReader.read(Data(priced.utf8)).parcels.map(\.product) == [nil])
        // Rakuten's own mails keep the market's name.
        let own = mail.replacingOccurrences(of: "shop.rakuten.co.jp", with: "rakuten.co.jp")
        #expect(ShippingMailReader.read(Data(own.utf8)).parcels.map(\.shop) == ["楽天市場"])
    }
}

/// The pieces under the reader: charsets, encoded words, transfer encodings, limits and hostile bytes.
@Suite("Mail decoding")
struct MailDecodingTests {
    @Test("ISO-2022-JP with CP50220's NEC row (①, ㈱) and half-width katakana; CP932; EUC-JP")
    func charsets() {
        // ESC $ B, ① (row 0x2D cell 0x21), ㈱ (0x2D 0x6A), あ; ESC ( I, ｱ (0x31); ESC ( B, "x".
        let jis = Data([0x1B, 0x24, 0x42, 0x2D, 0x21, 0x2D, 0x6A, 0x24, 0x22, 0x1B, 0x28, 0x49, 0x31, 0x1B, 0x28, 0x42, 0x78])
        #expect(MailCharset.decode(jis, charset: "ISO-2022-JP") == "①㈱あｱx")
        #expect(MailCharset.decode(Data([0x87, 0x40, 0x82, 0xA0]), charset: "Shift_JIS") == "①あ")
        #expect(MailCharset.decode(Data([0xA4, 0xA2, 0x41]), charset: "EUC-JP") == "あA")
        #expect(MailCharset.decode(Data([0x82]), charset: "Windows-31J") == "\u{FFFD}", "a cut-off pair")
        #expect(MailCharset.decode(Data("素".utf8), charset: nil) == "素")
    }

    @Test("encoded words: B and Q, in several charsets, the space between two words dropped")
    func encodedWords() {
        #expect(EncodedWords.decode("=?UTF-8?B?5Yqg6Zm2?= =?UTF-8?Q?=E5=95=86_x?=") == "加陶商 x")
        #expect(EncodedWords.decode("=?ISO-2022-JP?B?GyRCJCIbKEI=?= plain") == "あ plain")
        #expect(EncodedWords.decode("=?bogus") == "=?bogus")
        #expect(EncodedWords.decode("a =?UTF-8?X?abc?= b") == "a =?UTF-8?X?abc?= b")
    }

    @Test("quoted-printable: soft line breaks and =XX; malformed escapes kept; base64 ignoring line breaks")
    func transferEncodings() {
        let text = TransferEncoding.quotedPrintable(Data("no01=3D1234=\r\n5678=ZZ=4".utf8))
        #expect(String(decoding: text, as: UTF8.self) == "no01=12345678=ZZ=4")
        #expect(String(decoding: TransferEncoding.base64(Data("5Yqg\r\n6Zm2".utf8)), as: UTF8.self) == "加陶")
    }

    @Test("an mbox past the limit says so: the first messages are split off and `more` is set")
    func mboxLimit() throws {
        let mbox = try Data(contentsOf: ShippingMailTests.directory.appendingPathComponent("three.mbox"))
        let two = Mailbox.split(mbox, limit: 2)
        #expect(two.messages.count == 2 && two.more)
        let three = Mailbox.split(mbox, limit: 3)
        #expect(three.messages.count == 3 && !three.more)
        #expect(Mailbox.split(mbox).messages.count == 3 && !Mailbox.split(mbox).more)
        #expect(Mailbox.firstMessage(in: mbox) == three.messages[0])
    }

    @Test("a message larger than allowed is not read, and says so; parts and depth are bounded")
    func limits() {
        var limits = MailLimits()
        limits.messageBytes = 100
        let big = ShippingMailReader.read(Data(("Subject: x\r\n\r\n" + String(repeating: "a", count: 200)).utf8), limits: limits)
        #expect(big.parcels.isEmpty && big.problem?.contains("more than the 100 read") == true)
        // 300 nested multiparts: read to the depth limit, no deeper, no crash.
        var body = "Content-Type: text/plain\r\n\r\nお問い合わせ伝票番号：3277-5445-9830\r\n"
        for level in 0..<300 {
            body = "Content-Type: multipart/mixed; boundary=\"b\(level)\"\r\n\r\n--b\(level)\r\n" + body + "\r\n--b\(level)--\r\n"
        }
        let deep = ShippingMailReader.read(Data(("Subject: deep\r\n" + body).utf8))
        #expect(deep.parcels.isEmpty, "the number lies deeper than 8 parts")
        var many = "Subject: many\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n"
        for _ in 0..<500 { many += "--m\r\nContent-Type: text/plain\r\n\r\nx\r\n" }
        let wide = ShippingMessage(Data((many + "--m--\r\n").utf8))
        #expect(wide.parts.count < 100)
    }

    @Test("hostile bytes are read without a trap: random data, a boundary never closed, a header with no end")
    func hostile() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = Data((0..<Int.random(in: 0..<2_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            _ = ShippingMailReader.read(bytes)
        }
        _ = ShippingMailReader.read(Data("Content-Type: multipart/mixed; boundary=\"z\"\r\n\r\n--z\r\nContent-Type: text/plain\r\n\r\n".utf8))
        _ = ShippingMailReader.read(Data(String(repeating: "X-Long: a\r\n ", count: 5_000).utf8))
        _ = ShippingMailReader.read(Data("Subject: =?ISO-2022-JP?B?GyRC?=\r\n\r\n\u{1B}$B".utf8))
        #expect(ShippingMailReader.read(Data()).parcels.isEmpty)
    }

    @Test(
        "a mail of ten thousand numbers is read in time (each step linear): 100 parcels taken and the rest said; hostile shapes read to their bounds"
    )
    func crowded() throws {
        let numbers = ValidNumbers.numbers(10_000, from: 30_000_000_000)
        // Once quadratic: 1,000 labelled lines took 17 s in a release build, so 10,000 took half an hour; the
        // suite's time limit (a minute) is what fails if a step turns quadratic again.
        let labelled = "Subject: many\r\nFrom: shop@example.jp\r\n\r\n"
            + numbers.map { "お問い合わせ伝票番号：\($0.digits)\r\n" }.joined()
        let mail = ShippingMailReader.read(Data(labelled.utf8))
        #expect(mail.parcels.map(\.number) == Array(numbers.prefix(100)))
        #expect(mail.moreThanLimit)
        // The rest of these shapes are read to their bounds and no further: none finds what it should not.
        let shapes = [
            "Subject: x\r\n\r\nお問い合わせ伝票番号：" + numbers.map(\.digits).joined(separator: " ") + "\r\n",
            "Subject: x\r\n\r\nヤマト運輸\r\n" + String(repeating: "\r\n", count: 300_000) + numbers.prefix(500).map(\.digits).joined(separator: "\r\n"),
            "Subject: x\r\n\r\n" + numbers.map { "注文番号：\($0.digits)\r\n" }.joined(),
            "Subject: x\r\n\r\n" + String(repeating: "---------- Forwarded message ----------\r\nFrom: a@b.example\r\n", count: 20_000),
            "Subject: x\r\nContent-Type: text/html\r\n\r\n" + String(repeating: "<div><a href='https://example.com/x'>&amp;&#x3042;", count: 20_000),
            "Subject: x\r\n\r\n" + numbers.map { "https://jizen.kuronekoyamato.co.jp/jizen/servlet/crjz.b.NQ0010?id=\($0.digits)\r\n" }.joined(),
        ]
        let found = shapes.map { ShippingMailReader.read(Data($0.utf8)) }
        // A label reaches the numbers in the 200 characters after it (16 numbers of 12 digits and a space), in order.
        #expect(found[0].parcels.count == 16)
        #expect(found[0].parcels.map(\.number) == Array(numbers.prefix(found[0].parcels.count)))
        #expect(found[1].parcels.isEmpty, "bare numbers with no label, far past the carrier's name, are not taken")
        #expect(found[2].parcels.isEmpty, "order numbers are never taken")
        #expect(found[3].parcels.isEmpty)
        #expect(found[4].parcels.isEmpty)
        #expect(found[5].parcels.count == 100 && found[5].parcels.allSatisfy { $0.evidence.contains(.link) })
    }
}
