import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

/// Exactly the model the original app declared, as a program written against it has it.
private struct DeliveryList: Codable {
    let deriveryList: [Delivery]
}

private struct Delivery: Codable {
    let deliveryID: Int
    let statusList: [Status]
}

private struct Status: Codable {
    let status: String
    let date: String
    let time: String?
    let shopName: String
}

/// `POST /v1/tneko`: Yamato's own form body in, the original app's model out, and hostile bodies refused.
@Suite("API: the original app's model", .timeLimit(.minutes(10)))
struct TnekoRouteTests {
    private static func post(_ harness: Harness, _ body: String, type: String = "application/x-www-form-urlencoded")
        async -> HTTPResponse
    {
        await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: "/v1/tneko", headers: ["Content-Type": type], body: Data(body.utf8)))
    }

    @Test("the form body of Yamato's page is answered in the model a Codable client decodes")
    func decodesAsTheOriginalModel() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(2)
        let body =
            "number00=1&number01=\(numbers[0].formatted)&number02=&number03=\(numbers[1].digits)"
            + "&number04=1234-5678-9015&category=0"
        let response = await Self.post(harness, body)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let decoded = try JSONDecoder().decode(DeliveryList.self, from: response.body)
        #expect(
            decoded.deriveryList.map(\.deliveryID) == [Int(numbers[0].digits)!, Int(numbers[1].digits)!, 123456789015])
        let first = try #require(decoded.deriveryList.first?.statusList.first)
        #expect(first.date.wholeMatch(of: /\d\d\/\d\d/) != nil)
        #expect(first.time?.wholeMatch(of: /\d\d:\d\d/) != nil)
        #expect(!first.status.isEmpty)
        #expect(decoded.deriveryList[2].statusList.isEmpty)
        let errors = try JSON(data: response.body)["errors"]?.elements ?? []
        #expect(errors.count == 1)
        #expect(errors.first?["code"] == .string("invalid_number"))
        #expect(errors.first?["input"] == .string("1234-5678-9015"))
        #expect(await harness.transport.calls.count == 1)
    }

    @Test("no numbers: an empty deriveryList")
    func empty() async throws {
        let response = await Self.post(await Harness(), "number00=1&number01=&category=0")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"deriveryList":[],"errors":[]}"#)
    }

    @Test("a failed upstream keeps the number's entry, empty, and says why in errors")
    func upstreamFailure() async throws {
        let harness = await Harness { _, _ in UpstreamResponse(status: 500, headers: [:], body: Data()) }
        let number = ValidNumbers.numbers(1)[0]
        let response = await Self.post(harness, "number00=1&number01=\(number.digits)")
        #expect(response.status == 200)
        let decoded = try JSONDecoder().decode(DeliveryList.self, from: response.body)
        #expect(decoded.deriveryList.map(\.deliveryID) == [Int(number.digits)!])
        #expect(decoded.deriveryList[0].statusList.isEmpty)
        let errors = try JSON(data: response.body)["errors"]?.elements ?? []
        #expect(errors.first?["code"] == .string("upstream_502"))
    }

    @Test(
        "hostile bodies get one clear problem and nothing is sent",
        arguments: [
            ("number11=327754459830", 400, "\"number11\" is not one of number01 to number10"),
            ("number01=1&number01=2", 400, "number01 is given twice"),
            ("number1=327754459830", 400, "\"number1\" is not one of number01 to number10"),
            ("number0001=3", 400, "is not one of number01 to number10"),
            ("number" + String(repeating: "9", count: 5000) + "=1", 400, "is not one of number01 to number10"),
        ])
    func hostile(body: String, status: Int, detail: String) async throws {
        let harness = await Harness()
        let response = await Self.post(harness, body)
        #expect(response.status == status)
        let problem = try JSON(data: response.body)
        guard case .string(let text)? = problem["detail"] else { return #expect(Bool(false)) }
        #expect(text.contains(detail), "\(text)")
        #expect(text.count < 200)
        #expect(await harness.transport.calls.isEmpty)
    }

    @Test("a body that is not a form, or not UTF-8, is refused")
    func wrongBodies() async throws {
        let harness = await Harness()
        let json = await Self.post(harness, #"{"numbers": ["327754459830"]}"#, type: "application/json")
        #expect(json.status == 415)
        let binary = await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: "/v1/tneko", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data([0xFF, 0xFE, 0x00, 0x80])))
        #expect(binary.status == 400)
        let control = await Self.post(harness, "number01=%00%01%1B")
        #expect(control.status == 200)
        let errors = try JSON(data: control.body)["errors"]?.elements ?? []
        #expect(errors.first?["code"] == .string("invalid_number"))
        #expect(await harness.transport.calls.isEmpty)
        let get = await harness.get("/v1/tneko")
        #expect(get.status == 405)
    }
}
