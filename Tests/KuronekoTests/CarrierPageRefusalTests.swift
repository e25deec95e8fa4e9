import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// What Sagawa's and Japan Post's parsers refuse, and say so, rather than misread; and their vocabularies.
@Suite("Sagawa and Japan Post: refusals and vocabulary")
struct CarrierPageRefusalTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)

    private static func sagawa(_ html: String) throws(TrackingPageError) -> [Shipment] {
        try SagawaPageParser().parse(Data(html.utf8), now: now)
    }

    private static func japanPost(_ html: String) throws(TrackingPageError) -> [Shipment] {
        try JapanPostPageParser().parse(Data(html.utf8), now: now)
    }

    @Test("a page without the result list is an unknown layout, naming what was expected and the title")
    func unknownLayouts() {
        let page = "<html><head><title>メンテナンス中</title></head><body><p>ただいまメンテナンス中です</p></body></html>"
        let sagawa = #expect(throws: TrackingPageError.self) { try Self.sagawa(page) }
        #expect(sagawa?.code == .unrecognizedLayout)
        #expect(sagawa?.message.contains(".table_okurijo_index") == true)
        #expect(sagawa?.message.contains("メンテナンス中") == true)
        let japanPost = #expect(throws: TrackingPageError.self) { try Self.japanPost(page) }
        #expect(japanPost?.code == .unrecognizedLayout)
        #expect(japanPost?.message.contains("配達状況詳細 or 照会結果") == true)
    }

    @Test("a denial page is blocked, never not found")
    func denial() {
        let page = "<html><head><title>Access Denied</title></head><body>Reference #18.1234</body></html>"
        let sagawa = #expect(throws: TrackingPageError.self) { try Self.sagawa(page) }
        #expect(sagawa?.code == .blocked)
        let japanPost = #expect(throws: TrackingPageError.self) { try Self.japanPost(page) }
        #expect(japanPost?.code == .blocked)
    }

    @Test("a 該当なし with a sentence nobody catalogued, or with history rows, is refused")
    func unknownNoMatch() throws {
        let page = try String(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent(
                "Tests/Fixtures/sagawa/current/single-not-found.html"), encoding: .utf8)
        let changed = page.replacingOccurrences(
            of: "&#30331;&#37682;&#12373;&#12428;&#12390;&#12362;&#12426;&#12414;&#12379;&#12435;", with: "&#22793;")
        #expect(changed != page, "the fixture's sentence was found to change")
        let error = #expect(throws: TrackingPageError.self) { try Self.sagawa(changed) }
        #expect(error?.code == .malformedBlock)
        #expect(error?.message.contains("該当なし") == true)
    }

    @Test("a history row of the wrong width is refused, naming the widths expected")
    func rowWidths() throws {
        let page = try String(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent(
                "Tests/Fixtures/japanpost/current/single-delivered.html"), encoding: .utf8)
        let broken = page.replacingOccurrences(of: "<td rowspan=\"2\" class=\"w_180\">&nbsp;</td>", with: "")
        let error = #expect(throws: TrackingPageError.self) { try Self.japanPost(broken) }
        #expect(error?.code == .malformedBlock)
        #expect(error?.message.contains("expected 5") == true)
    }

    @Test("the numbers asked for are the numbers answered, in order")
    func numbersChecked() throws {
        let page = try Data(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent(
                "Tests/Fixtures/sagawa/current/single-delivered.html"))
        let other = try TrackingNumber(parsing: "1234567890")
        let error = #expect(throws: TrackingPageError.self) {
            try SagawaPageParser().parse(page, expecting: [other], now: Self.now)
        }
        #expect(error?.code == .numberMismatch)
    }

    @Test("Sagawa's vocabulary: exact labels, then families; anything else unknown")
    func sagawaVocabulary() {
        #expect(SagawaVocabulary.meaning(of: "集荷").code == .infoReceived)
        #expect(SagawaVocabulary.meaning(of: "保管中").code == .availableForPickup)
        #expect(SagawaVocabulary.meaning(of: "持戻り").code == .attemptFailed)
        #expect(SagawaVocabulary.meaning(of: "持戻（休業）").code == .attemptFailed)
        #expect(SagawaVocabulary.meaning(of: "配達完了（宅配ボックス）").code == .delivered)
        #expect(SagawaVocabulary.meaning(of: "お客様引渡完了").code == .delivered)
        #expect(SagawaVocabulary.meaning(of: "調査中（住所不明）").code == .exception)
        #expect(SagawaVocabulary.meaning(of: "謎の状態").code == .unknown)
        #expect(SagawaVocabulary.meaning(of: "謎の状態").english == nil)
        #expect(SagawaVocabulary.noMatchCode(sentence: "お荷物データが登録されておりません。") == .notFound)
        #expect(SagawaVocabulary.noMatchCode(sentence: "恐れ入りますが、お問い合せ送り状NOをお確かめください。") == .invalidNumber)
    }

    @Test("Japan Post's vocabulary in both languages; the final return is terminal, the start of one is not")
    func japanPostVocabulary() {
        #expect(JapanPostVocabulary.meaning(of: "引受").code == .infoReceived)
        #expect(JapanPostVocabulary.meaning(of: "Posting/Collection").code == .infoReceived)
        #expect(JapanPostVocabulary.meaning(of: "持ち出し中").english == "Allocated to delivery staff")
        #expect(JapanPostVocabulary.meaning(of: "窓口でお渡し").code == .delivered)
        #expect(JapanPostVocabulary.meaning(of: "ご不在のため持ち戻り").code == .attemptFailed)
        #expect(JapanPostVocabulary.meaning(of: "返送").isFinal == false)
        #expect(JapanPostVocabulary.meaning(of: "差出人に返送済み").isFinal)
        #expect(JapanPostVocabulary.meaning(of: "Held by import Customs").code == .inTransit)
        #expect(JapanPostVocabulary.meaning(of: "お届け先にお届け済み（宅配ロッカー）").code == .unknown)
    }

    @Test("abroad: the country's zone with daylight saving; a country not listed keeps no time")
    func zones() {
        let summer = JapanPostPageParser.time("09/03/2026 06:40", region: "UNITED KINGDOM")
        #expect(summer?.iso8601 == "2026-09-03T06:40:00+01:00")
        let winter = JapanPostPageParser.time("12/03/2026 06:40", region: "UNITED KINGDOM")
        #expect(winter?.iso8601 == "2026-12-03T06:40:00+00:00")
        #expect(JapanPostPageParser.time("2026/09/22 14:21", region: "東京都")?.iso8601 == "2026-09-22T14:21:00+09:00")
        #expect(JapanPostPageParser.time("09/04/2026 11:43", region: "UNITED STATES") == nil)
        #expect(JapanPostPageParser.time("2026/07/06", region: "福岡県")?.iso8601 == "2026-07-06")
        #expect(JapanPostPageParser.time("2026/13/45 99:99", region: "東京都") == nil)
    }

    @Test("pages cut anywhere, or with bytes changed, are answered or refused: never a trap", .timeLimit(.minutes(10)))
    func mangledPages() throws {
        var generator = SystemRandomNumberGenerator()
        for page in Fixtures.sagawaCases + Fixtures.japanPostCases {
            let bytes = [UInt8](try page.html)
            for _ in 0..<40 {
                var mangled = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                for _ in 0..<8 where !mangled.isEmpty {
                    mangled[Int.random(in: 0..<mangled.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                mangled += Array("</html>".utf8)
                _ = try? SagawaPageParser().parse(Data(mangled), now: page.now)
                _ = try? JapanPostPageParser().parse(Data(mangled), now: page.now)
                _ = try? CarrierPages.parse(Data(mangled), now: page.now)
            }
        }
        // Deep nesting is cut off, not followed.
        let deep = "<html><body>" + String(repeating: "<div>", count: 100_000) + "</body></html>"
        #expect(throws: TrackingPageError.self) { try Self.sagawa(deep) }
    }
}
