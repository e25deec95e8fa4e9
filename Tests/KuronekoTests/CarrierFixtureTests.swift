import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// Sagawa's and Japan Post's reconstructed pages (Tests/Fixtures/{sagawa,japanpost}/current) give exactly
/// the shipments of their expected.json. Those files carry no `requested_delivery` or English labels:
/// both are compared apart.
@Suite("Sagawa and Japan Post pages")
struct CarrierFixtureTests {
    private static let laterKeys: Set<String> = ["label_en", "requested_delivery"]

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

    @Test("the fixture lists are complete")
    func complete() {
        #expect(Fixtures.sagawaCases.count == 9)
        #expect(Fixtures.japanPostCases.count == 8)
    }
}
