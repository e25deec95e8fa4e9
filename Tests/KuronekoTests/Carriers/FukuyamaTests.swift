import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// Fukuyama's reconstructed pages (Tests/Fixtures/fukuyama/current, Shift_JIS as its pages were) give exactly
/// the shipments of their expected.json, and its numbers, links and mails are recognised.
@Suite("Fukuyama")
struct FukuyamaTests {
    static let cases = Fixtures.cases(ofCarrier: "fukuyama")

    @Test("every page gives exactly its expected shipments", arguments: cases)
    func page(page: Fixtures.Case) throws {
        let shipments = try FukuyamaPageParser().parse(try page.html, now: page.now)
        #expect(try JSON(encoding: shipments) == page.shipments)
        // A saved page is recognised without naming its carrier.
        let found = try CarrierPages.parse(try page.html, now: page.now)
        #expect(found.map(\.carrier) == Array(repeating: .fukuyama, count: shipments.count))
    }

    @Test("the fixture list is complete")
    func complete() {
        #expect(Self.cases.map(\.name) == ["detail-delivered", "detail-in-transit", "detail-not-found", "list-3-mixed"])
    }

    @Test("11 digits: Japan Post first when the 書留 check passes, Fukuyama alone when it fails")
    func detection() throws {
        #expect(try TrackingNumber(parsing: "052-8199-3651").candidates == [.japanPost, .fukuyama])
        #expect(try TrackingNumber(parsing: "05281993650").candidates == [.fukuyama])
        #expect(try TrackingNumber(parsing: "05281993650", for: .fukuyama).digits == "05281993650")
        // Japan Post still refuses a wrong check digit when it is the carrier named.
        #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "05281993650", for: .japanPost) }
        #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "3277-5445-9830", for: .fukuyama) }
        #expect(try Carrier(named: "Fukuyama") == .fukuyama)
        #expect(try Carrier(named: "fukutsu") == .fukuyama)
    }

    @Test("the form's token is read, and a page of neither layout is refused naming both")
    func formAndRefusal() throws {
        let form = Data(
            "<html><body><form><input type=\"hidden\" name=\"data[TrackingNo][formValiNo]\" value=\"abc123\"></form></body></html>"
                .utf8)
        #expect(try FukuyamaPageParser.formToken(form, charset: "UTF-8") == "abc123")
        let other = Data("<html><head><title>メンテナンス中</title></head><body><p>ただいま</p></body></html>".utf8)
        let error = try #require(throws: TrackingPageError.self) {
            try FukuyamaPageParser().parse(other, charset: "UTF-8", now: Date())
        }
        #expect(error.code == .unrecognizedLayout)
        #expect(error.message.contains("table.tracking_info"))
        #expect(error.message.contains("tr.address_content"))
    }

    @Test("a shipping mail's Fukuyama link and its 3-4-4 number are Fukuyama's parcel")
    func mail() throws {
        let text = """
            From: shop@example.co.jp
            Subject: =?UTF-8?B?5Ye66I235a6M5LqG?=
            Content-Type: text/plain; charset=UTF-8

            ご注文の商品を福山通運にて発送いたしました。
            お問い合わせ番号：052-8199-3650
            https://corp.fukutsu.co.jp/situation/tracking_no_hunt/41103160351
            """
        let parcels = ShippingMailReader.read(Data(text.utf8)).parcels
        #expect(parcels.map(\.number.digits).sorted() == ["05281993650", "41103160351"])
        #expect(parcels.allSatisfy { $0.carrier == .fukuyama })
    }
}
