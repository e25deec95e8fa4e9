import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// Sagawa's and Japan Post's reconstructed pages (Tests/Fixtures/{sagawa,japanpost}/current) give exactly
/// the shipments of their expected.json. Those files carry no `requested_delivery` or English labels:
/// both are compared apart.
@Suite("Sagawa and Japan Post pages")
struct CarrierFixtureTests {
    /// Compared apart (``whatToDoNext()``): the expected files were written before these were read.
    private static let laterKeys: Set<String> = ["label_en", "requested_delivery", "ship_date", "offices", "detail"]

    @Test("every Sagawa page gives exactly its expected shipments", arguments: Fixtures.sagawaCases)
    func sagawa(page: Fixtures.Case) throws {
        let shipments = try SagawaPageParser().parse(try page.html, now: page.now)
        #expect(try JSON(encoding: shipments).without(Self.laterKeys) == page.shipments)
        #expect(shipments.allSatisfy { $0.carrier == .sagawa })
    }

    @Test("every Japan Post page gives exactly its expected shipments", arguments: Fixtures.japanPostCases)
    func japanPost(page: Fixtures.Case) throws {
        let shipments = try JapanPostPageParser().parse(try page.html, now: page.now)
        #expect(try JSON(encoding: shipments).without(Self.laterKeys) == page.shipments)
        #expect(shipments.allSatisfy { $0.carrier == .japanPost })
    }

    @Test("what to do next: Sagawa's ship date and offices with their telephones; Japan Post's 詳細 and 窓口店")
    func whatToDoNext() throws {
        let returned = try #require(Fixtures.sagawaCases.first { $0.name == "returned-investigation" })
        let sagawa = try #require(try SagawaPageParser().parse(try returned.html, now: returned.now).first)
        #expect(sagawa.status.summary == "恐れ入りますが、営業所へお問い合わせください。")
        #expect(sagawa.shipDate == JapanDateTime(year: 2026, month: 8, day: 7))
        #expect(
            sagawa.offices == [
                CarrierOffice(role: "集荷", name: "西埼玉営業所", telephone: "0570-55-0421"),
                CarrierOffice(role: "配達", name: "荒川営業所", telephone: "0570-01-0659"),
            ])
        let back = try #require(Fixtures.japanPostCases.first { $0.name == "returned-to-sender" })
        let post = try #require(try JapanPostPageParser().parse(try back.html, now: back.now).first)
        #expect(post.events.compactMap(\.detail) == ["保管期間経過のため"])
        #expect(post.events.first { $0.label == "返送" }?.detail == "保管期間経過のため")
        #expect(
            post.offices == [
                CarrierOffice(role: "引受", name: "堺金岡郵便局", telephone: "0570-943-505"),
                CarrierOffice(role: "配達", name: "福岡中央郵便局", telephone: "0570-943-606"),
            ])
        let ems = try #require(Fixtures.japanPostCases.first { $0.name == "intl-ems-en" })
        let abroad = try #require(try JapanPostPageParser().parse(try ems.html, now: ems.now).first)
        #expect(abroad.offices?.first == CarrierOffice(role: "Posting", name: "SHIN-OSAKA", telephone: "0570-943-707"))
        // In the JSON only where the page gives them.
        let json = try JSON(encoding: [sagawa])
        #expect(json.elements.first?["ship_date"] == .string("2026-08-07"))
        #expect(json.elements.first?["offices"]?.elements.count == 2)
    }

    @Test("the fixture lists are complete")
    func complete() {
        #expect(Fixtures.sagawaCases.count == 9)
        #expect(Fixtures.japanPostCases.count == 9)
    }
}
