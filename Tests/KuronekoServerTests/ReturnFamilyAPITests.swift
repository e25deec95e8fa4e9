import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import Testing

/// Through the API, a Yamato page that says 輸送中 after 返品: the watch is returning, found by
/// `family=returning`, counted so in the summary, and not in transit.
@Suite("A parcel going back, through the API", .timeLimit(.minutes(5)))
struct ReturnFamilyAPITests {
    @Test func returningIsItsOwnFamily() async throws {
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let harness = await Harness(answer: { _, _ in
            UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(blocks: [
                    FakeTrackingPage.Block(
                        number: number, state: "輸送中",
                        rows: [
                            .init("荷物受付", "01月10日 18:02", "東京支店"), .init("調査中", "01月12日 09:00"),
                            .init("返品", "01月13日 10:00"), .init("輸送中", "01月13日 18:00", "羽田"),
                        ])
                ]))
        })
        let added = await harness.send("POST", "/v1/watches", json: #"{"number": "327754459830"}"#)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let refreshed = await harness.send("POST", "/v1/watches/327754459830/refresh")
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
        let watch = try JSON(data: await harness.get("/v1/watches/327754459830").body)
        #expect(watch["family"] == .string("returning"))
        #expect(watch["shipment"]?["status"]?["label"] == .string("輸送中"))
        let returning = try JSON(data: await harness.get("/v1/watches?family=returning").body)
        #expect(returning["watches"]?.elements.count == 1)
        let transit = try JSON(data: await harness.get("/v1/watches?family=transit").body)
        #expect(transit["watches"]?.elements.isEmpty == true)
        let summary = try JSON(data: await harness.get("/v1/watches/summary").body)
        #expect(summary["by_family"]?["returning"] == .number(1))
        #expect(summary["by_family"]?["transit"] == .number(0))
    }
}
