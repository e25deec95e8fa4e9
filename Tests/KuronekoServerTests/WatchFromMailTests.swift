import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// `POST /v1/watches/from-mail` in-process: a saved mail's parcels watched for the caller, labelled; hostile
/// bodies refused or read without a trap.
@Suite("Watches from a saved mail", .timeLimit(.minutes(10)))
struct WatchFromMailTests {
    static let corpus = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/mail")

    static func post(_ harness: Harness, _ body: Data) async -> HTTPResponse {
        await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: WatchRoutes.mailPath, headers: ["content-type": "message/rfc822"], body: body))
    }

    @Test("a mail's parcel is watched with the shop and the order as its label; again it is 200, not a second watch")
    func watched() async throws {
        let harness = await Harness()
        let mail = try Data(contentsOf: Self.corpus.appendingPathComponent("amazon-shipped.eml"))
        let answer = await Self.post(harness, mail)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let result = try JSON(data: answer.body)
        #expect(result["message_id"]?.string == "amazon-1@corpus.kuroneko.test")
        #expect(result["more_parcels"] == .bool(false))
        let parcels = result["parcels"]?.elements ?? []
        #expect(parcels.count == 1)
        #expect(parcels.first?["status"] == .number(201))
        #expect(parcels.first?["watch"]?["label"]?.string == "Amazon.co.jp 503-1234567-7654321")
        #expect(parcels.first?["evidence"] == .array([.string("label"), .string("carrier_named")]))
        #expect(parcels.first?["watch"]?["source"]?["from"]?.string == "shipment-tracking@amazon.co.jp")
        #expect(parcels.first?["watch"]?["source"]?["mailbox"] == .null)
        // The order number is the parcel record's reference: searched and exported with it.
        #expect(parcels.first?["watch"]?["record"]?["reference"]?.string == "503-1234567-7654321")
        let again = try JSON(data: await Self.post(harness, mail).body)
        #expect(again["parcels"]?.elements.first?["status"] == .number(200))
        let listed = try JSON(data: await harness.get("/v1/watches").body)
        #expect(listed["watches"]?.elements.count == 1)
    }

    @Test("no number: an empty list; a shop's own delivery named")
    func nothing() async throws {
        let harness = await Harness()
        for (name, own) in [("traps", JSON.null), ("amazon-own-delivery", .string("Amazon"))] {
            let answer = await Self.post(harness, try Data(contentsOf: Self.corpus.appendingPathComponent("\(name).eml")))
            #expect(answer.status == 200)
            let result = try JSON(data: answer.body)
            #expect(result["parcels"] == .array([]) && result["no_trackable"] == own, "\(name)")
        }
        #expect(try JSON(data: await harness.get("/v1/watches").body)["watches"]?.elements.isEmpty == true)
    }

    @Test("hostile bodies: empty is 400 naming what to send; random bytes, a label full of control characters and a bomb of parts are read without a trap")
    func hostile() async throws {
        let harness = await Harness()
        let empty = await Self.post(harness, Data())
        #expect(empty.status == 400)
        #expect(String(decoding: empty.body, as: UTF8.self).contains("send the saved mail (.eml) itself"))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes = Data((0..<Int.random(in: 1..<4_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(await Self.post(harness, bytes).status == 200)
        }
        let number = ValidNumbers.numbers(1, from: 67_000_000_000)[0]
        let control = "From: \"\u{1}\u{7}悪\u{2028}\" <a@b.example>\r\nSubject: x\r\n\r\n[ショップ名] \u{7F}\u{85}店\u{200E}\r\nお問い合わせ伝票番号：\(number.digits)\r\n"
        let labelled = try JSON(data: await Self.post(harness, Data(control.utf8)).body)
        let label = labelled["parcels"]?.elements.first?["watch"]?["label"]?.string ?? ""
        #expect(labelled["parcels"]?.elements.first?["status"] == .number(201), "\(labelled)")
        #expect(label.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control }, "\(label.unicodeScalars.map(\.value))")
        var parts = "Subject: parts\r\nContent-Type: multipart/mixed; boundary=\"p\"\r\n\r\n"
        for _ in 0..<5_000 { parts += "--p\r\nContent-Type: text/plain\r\n\r\nお問い合わせ伝票番号：3277-5445-9830\r\n" }
        #expect(await Self.post(harness, Data((parts + "--p--\r\n").utf8)).status == 200)
        // A list, not a notice: the first 100 watched and the rest said.
        let crowded = ValidNumbers.numbers(150, from: 68_000_000_000).map { "お問い合わせ伝票番号：\($0.digits)\r\n" }.joined()
        let listed = try JSON(data: await Self.post(harness, Data(("Subject: list\r\n\r\n" + crowded).utf8)).body)
        #expect(listed["more_parcels"] == .bool(true))
        #expect(listed["parcels"]?.elements.count == 100)
    }
}
