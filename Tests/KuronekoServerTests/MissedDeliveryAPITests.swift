import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import Testing

/// Through the API, a Yamato page whose latest row is 持戻（ご不在）: the watch says until when the parcel is kept
/// (the first failed attempt + 7 days); a parcel on its way says nothing of keeping.
@Suite("A missed delivery, through the API", .timeLimit(.minutes(5)))
struct MissedDeliveryAPITests {
    @Test func keptUntilTheFirstAttemptAndSevenDays() async throws {
        let absent = try TrackingNumber(parsing: "3277-5445-9830")
        let moving = ValidNumbers.numbers(1, from: 71_000_000_000)[0]
        let harness = await Harness(answer: { _, request in
            let asked = FakeTrackingPage.numbers(inFormBody: request.body)
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(
                    blocks: asked.map { number in
                        number == absent
                            ? FakeTrackingPage.Block(
                                number: number, state: "持戻（ご不在）",
                                rows: [
                                    .init("荷物受付", "01月10日 18:02", "東京支店"), .init("配達中", "01月12日 08:51"),
                                    .init("持戻（ご不在）", "01月12日 14:10"),
                                ])
                            : FakeTrackingPage.Block(
                                number: number, state: "輸送中", rows: [.init("輸送中", "01月11日 09:00", "羽田")])
                    }))
        })
        for number in [absent, moving] {
            #expect(await harness.send("POST", "/v1/watches", json: "{\"number\": \"\(number.digits)\"}").status == 201)
            #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        }
        let watch = try JSON(data: await harness.get("/v1/watches/\(absent.digits)").body)
        let attempt = try #require(watch["shipment"]?["events"]?.elements.last?["at"]?.string)
        let attemptDay = try #require(ISO8601DateFormatter().date(from: attempt))
        let expected = TrackingColumns.isoDate(JapanDateTime(attemptDay.addingTimeInterval(7 * 86_400)))
        #expect(watch["missed_delivery"]?["kept_until"] == .string(expected))
        #expect(watch["missed_delivery"]?["cool"] == .bool(false))
        #expect(expected.hasSuffix("-01-19"))
        let other = try JSON(data: await harness.get("/v1/watches/\(moving.digits)").body)
        #expect(other["missed_delivery"] == .null)
    }
}
