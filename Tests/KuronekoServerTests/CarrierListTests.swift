import Foundation
import Kuroneko
import KuronekoHTTP
@testable import KuronekoServer
import KuronekoTestSupport
import Testing

/// What clients learn of the carriers comes from the registry: `GET /v1/carriers`, the OpenAPI document's
/// one carrier enum, and the web app's form targets.
@Suite("The carriers as the API describes them")
struct CarrierListTests {
    @Test("GET /v1/carriers lists every registered carrier with its names, forms, links and colours")
    func list() async throws {
        let harness = await Harness()
        let response = await harness.get("/v1/carriers")
        #expect(response.status == 200)
        let carriers = try #require(try JSON(data: response.body)["carriers"]?.elements)
        #expect(carriers.map { $0["id"] } == Carrier.allCases.map { .string($0.rawValue) })
        let yamato = try #require(carriers.first)
        #expect(yamato["name"] == .string("ヤマト運輸"))
        #expect(yamato["tracking_link"]?["method"] == .string("post"))
        #expect(yamato["tracking_link"]?["fields"]?["number01"] == .string("{number}"))
        let seino = try #require(carriers.first { $0["id"] == .string("seino") })
        #expect(seino["tracking_link"]?["url"] == .string("https://track.seino.co.jp/cgi-bin/gnpquery.pgm?GNPNO1={number}"))
        #expect(seino["number_forms"] == .string("10 digits (no check digit is public)"))
        let fukuyama = try #require(carriers.first { $0["id"] == .string("fukuyama") })
        #expect(fukuyama["redelivery_link"] == nil)
        #expect(fukuyama["colors"]?["background"] != nil)
    }

    @Test("the served OpenAPI document's one Carrier enum is the registry's, and every carrier field refers to it")
    func openAPIEnum() async throws {
        let harness = await Harness()
        let document = try JSON(data: await harness.get("/openapi.json").body)
        #expect(
            document["components"]?["schemas"]?["Carrier"]?["enum"]
                == .array(Carrier.allCases.map { .string($0.rawValue) }))
        // No other enum lists carriers by hand.
        let text = String(decoding: await harness.get("/openapi.json").body, as: UTF8.self)
        #expect(text.components(separatedBy: "\"sagawa\"").count == 2)
    }

    @Test("the dashboard's forms may post to the carriers whose page answers a POST only, and nowhere else")
    func formTargets() {
        let policy = Server.webApp(demo: false).contentSecurityPolicy
        #expect(policy.contains("form-action 'self' https://toi.kuronekoyamato.co.jp;"))
    }
}
