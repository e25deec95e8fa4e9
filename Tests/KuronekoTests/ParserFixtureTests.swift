import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

@Suite("Parser on the current-layout fixture pages")
struct ParserFixtureTests {
    @Test("every fixture page gives exactly the shipments of expected.json", arguments: Fixtures.currentCases)
    func matchesExpected(page: Fixtures.Case) throws {
        let shipments = try TrackingPageParser().parse(try page.html, now: page.now)
        let actual = try JSON(encoding: shipments)
        #expect(actual.without(Fixtures.keysAddedSinceFixtures) == page.shipments)
    }

    @Test("the 詳細確認／日時・場所変更 button's address is kept for each parcel whose block has one")
    func changeDeliveryLink() throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-absent" })
        let shipment = try #require(try TrackingPageParser().parse(try page.html, now: page.now).first)
        #expect(
            shipment.changeDeliveryURL?.absoluteString
                == "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=443496171020")
        #expect(try JSON(encoding: shipment)["change_delivery_url"] != nil)
        let unregistered = try #require(Fixtures.currentCases.first { $0.name == "single-unregistered" })
        let none = try TrackingPageParser().parse(try unregistered.html, now: unregistered.now)
        #expect(none.allSatisfy { $0.changeDeliveryURL == nil })
    }

    @Test(
        "a button linking anywhere but an https page of Yamato's is not kept",
        arguments: [
            "http://member.kms.kuronekoyamato.co.jp/parcel/detail", "https://evil.example/parcel",
            "https://kuronekoyamato.co.jp.evil.example/", "javascript:alert(1)", "https://user@kuronekoyamato.co.jp/",
        ])
    func foreignChangeLink(address: String) throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-absent" })
        let html = String(decoding: try page.html, as: UTF8.self).replacingOccurrences(
            of: "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=443496171020", with: address)
        let shipment = try #require(try TrackingPageParser().parse(Array(html.utf8), now: page.now).first)
        #expect(shipment.changeDeliveryURL == nil)
    }

    @Test("the fixture list is complete")
    func allFixturesFound() {
        #expect(Fixtures.currentCases.count == 13)
    }

    @Test("status and every event carry an English label beside the Japanese", arguments: Fixtures.currentCases)
    func englishLabels(page: Fixtures.Case) throws {
        let shipments = try TrackingPageParser().parse(try page.html, now: page.now)
        for shipment in shipments {
            #expect(shipment.status.labelEnglish?.isEmpty == false, "status \(shipment.status.label)")
            for event in shipment.events {
                #expect(event.labelEnglish?.isEmpty == false, "event \(event.label)")
            }
        }
        let json = try JSON(encoding: shipments)
        for shipment in json.elements {
            #expect(shipment["status"]?["label_en"] != nil)
        }
    }

    @Test("official Yamato English wording is used where Yamato publishes one")
    func officialEnglish() {
        #expect(StatusVocabulary.meaning(of: "配達中").english == "Out for Delivery")
        #expect(StatusVocabulary.meaning(of: "作業店通過").english == "In Transit")
        #expect(StatusVocabulary.meaning(of: "配達店到着").english == "Arrival Scan")
        #expect(StatusVocabulary.meaning(of: "持戻(ご不在)").english == "Hold at Yamato (Consignee Not Available)")
        #expect(
            StatusVocabulary.meaning(of: "依頼受付(日、時間帯変更)").english
                == "Request Accepted (alternate delivery schedule arrangement)")
    }

    @Test(
        "labels map to codes: exact first, then family prefix, else unknown",
        arguments: [
            ("配達完了", StatusCode.delivered), ("配達完了（置き配）", .delivered), ("配達完了（新しい何か）", .delivered),
            ("持戻（置き配不能）サイズオーバー", .attemptFailed), ("持戻(ご不在)", .attemptFailed),
            ("調査中（受取ご辞退）", .exception), ("依頼受付（再配達）", .inTransit), ("依頼受付(店頭受取)", .inTransit),
            ("保管中（ご指定店）", .availableForPickup), ("ご来店予定(保管中)", .availableForPickup),
            ("配達日・時間帯指定（保管中）", .inTransit), ("投函予定", .inTransit), ("配達予定", .inTransit), ("遅延中(悪天候)", .inTransit),
            ("遅延中止", .unknown), ("返品完了", .returned),
            ("伝票番号未登録", .notFound), ("伝票番号誤り", .invalidNumber), ("お届け完了通知を依頼", .unknown),
            ("宇宙配送中", .unknown),
        ])
    func statusCodes(label: String, code: StatusCode) {
        #expect(StatusVocabulary.meaning(of: label).code == code)
    }

    @Test("numbers asked for must match the page's blocks, in count and in order")
    func expectingNumbers() throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "multi-3-mixed" })
        let asked =
            try ["766154809302", "292125879511"].map(TrackingNumber.init(parsing:))
            + [try TrackingNumber(echoedByPage: "766154809300")]
        let shipments = try TrackingPageParser().parse(try page.html, expecting: asked, now: page.now)
        #expect(shipments.map(\.trackingNumber) == asked)

        let countError = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(try page.html, expecting: Array(asked.prefix(2)), now: page.now)
        }
        #expect(countError?.code == .blockCountMismatch)
        #expect(countError?.message == "expected 2 parcel blocks for 2 numbers, found 3")

        let swapped = [asked[1], asked[0], asked[2]]
        let orderError = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(try page.html, expecting: swapped, now: page.now)
        }
        #expect(orderError?.code == .numberMismatch)
        #expect(orderError?.message.contains("parcel block 1 is for 7661-5480-9302") == true)
    }

    @Test("a returned parcel stays returned whatever its last row says, and 返品完了 is terminal")
    func returnedRule() throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "nekopos-returned" })
        let shipment = try #require(try TrackingPageParser().parse(try page.html, now: page.now).first)
        #expect(shipment.status.code == .returned)
        #expect(shipment.status.label == "陸・海上切替え")
        #expect(shipment.status.isTerminal == false)

        let completed = String(decoding: try page.html, as: UTF8.self)
            .replacingOccurrences(
                of: "<h4 class=\"tracking-invoice-block-state-title\">陸・海上切替え</h4>",
                with: "<h4 class=\"tracking-invoice-block-state-title\">返品完了</h4>")
        let done = try #require(try TrackingPageParser().parse(Data(completed.utf8), now: page.now).first)
        #expect(done.status.code == .returned)
        #expect(done.status.isTerminal)
    }

    @Test("the page's declared charset is honoured: a Shift_JIS page reads as Japanese")
    func shiftJISPage() throws {
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let utf8Page = FakeTrackingPage.html(for: [number])
        let expected = try TrackingPageParser().parse(utf8Page, now: now)
        let text = String(decoding: utf8Page, as: UTF8.self)

        let withMeta = text.replacingOccurrences(of: "<meta charset=\"UTF-8\">", with: "<meta charset=\"Shift_JIS\">")
        let fromMeta = try TrackingPageParser().parse(try #require(withMeta.data(using: .shiftJIS)), now: now)
        #expect(fromMeta == expected)
        #expect(fromMeta.first?.status.label == "配達中")

        let withoutMeta = text.replacingOccurrences(of: "<meta charset=\"UTF-8\">", with: "")
        let shiftJIS = try #require(withoutMeta.data(using: .shiftJIS))
        let fromHeader = try TrackingPageParser().parse(shiftJIS, charset: "Shift_JIS", now: now)
        #expect(fromHeader == expected)
    }

    @Test("JSON decodes back to the same shipments", arguments: Fixtures.currentCases)
    func jsonRoundTrip(page: Fixtures.Case) throws {
        let shipments = try TrackingPageParser().parse(try page.html, now: page.now)
        let decoded = try JSONDecoder().decode([Shipment].self, from: try JSONEncoder().encode(shipments))
        #expect(decoded == shipments)
    }
}
