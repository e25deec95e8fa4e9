import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// `POST /v1/watches/from-text`: pasted text read by the mail reader's rules: a number after a tracking label is
/// watched, a bare order or telephone number is not; hostile bodies are refused by name.
@Suite("Watches from pasted text", .timeLimit(.minutes(5)))
struct WatchFromTextTests {
    static func post(_ harness: Harness, _ body: Data) async -> HTTPResponse {
        await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: WatchRoutes.textPath, headers: ["content-type": "text/plain; charset=utf-8"],
                body: body))
    }

    @Test func readByEvidence() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(3)
        let formatted = numbers.map(\.formatted)
        let text = """
            ご注文番号：\(numbers[2].digits)
            お問い合わせ伝票番号：\(formatted[0])
            ヤマト運輸 \(formatted[1])
            お電話：090-1234-5678
            """
        let answer = await Self.post(harness, Data(text.utf8))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let parcels = try JSON(data: answer.body)["parcels"]?.elements ?? []
        #expect(parcels.compactMap { $0["number"]?.string }.sorted() == [numbers[0].digits, numbers[1].digits].sorted())
        #expect(parcels.allSatisfy { $0["status"] == .number(201) })
        // Not from a mail: no source.
        #expect(parcels.first?["watch"]?["source"] == .null)
        let listed = try JSON(data: await harness.get("/v1/watches").body)
        #expect(listed["watches"]?.elements.count == 2, "the order number was taken as a parcel")
    }

    @Test func hostileBodies() async throws {
        let harness = await Harness()
        #expect(await Self.post(harness, Data()).status == 400)
        #expect(await Self.post(harness, Data([0xFF, 0xFE, 0x41])).status == 400)
        let nothing = await Self.post(harness, Data(String(repeating: "伝票番号 ", count: 5_000).utf8))
        #expect(nothing.status == 200)
        #expect(try JSON(data: nothing.body)["parcels"]?.elements.isEmpty == true)
        let huge = await Self.post(harness, Data(repeating: 0x31, count: WatchRoutes.textBytes + 1))
        #expect([400, 413].contains(huge.status))
    }
}
