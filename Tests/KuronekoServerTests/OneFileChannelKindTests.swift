import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing

/// A kind added in one file and one registration line (the tests' ``PagerChannel``: two secrets and a server
/// setting) is offered by the API, described by the OpenAPI document and for the web app's form, refused until
/// the operator gives its setting, and sent with it.
@Suite("A channel kind in one file", .timeLimit(.minutes(5)))
struct OneFileChannelKindTests {
    static let kinds = ChannelKindRegistry.standard.registering(PagerChannel())

    @Test("without its server setting the kind is described but unavailable, and adding one is refused")
    func unavailable() async throws {
        let harness = await Harness(configure: { $0.channelKinds = Self.kinds })
        let listed = try JSON(data: await harness.get("/v1/channels").body)
        let pager = try #require(listed["kinds"]?.elements.first { $0["name"]?.string == "pager" })
        #expect(pager["available"] == .bool(false))
        #expect(pager["unavailable_reason"]?.string?.contains("--channel-setting pager.origin") == true)
        #expect(listed["available"]?.elements.compactMap { $0.string }.contains("pager") == false)
        let refused = await harness.send(
            "POST", "/v1/channels", json: #"{"kind": "pager", "api_key": "k-1234", "signing_key": "s-5678"}"#)
        #expect(refused.status == 400)
        #expect(try JSON(data: refused.body)["reason"]?.string == "channel_unavailable")
    }

    @Test("with it: offered with its fields, checked, stored without showing its secrets, and sent to the origin")
    func offeredAndSent() async throws {
        let harness = await Harness(configure: {
            $0.channelKinds = Self.kinds
            $0.channelSettings = ["pager": ["origin": "http://127.0.0.2:9"]]
        })
        let listed = try JSON(data: await harness.get("/v1/channels").body)
        let pager = try #require(listed["kinds"]?.elements.first { $0["name"]?.string == "pager" })
        #expect(pager["available"] == .bool(true))
        #expect(pager["typed"] == .bool(true))
        #expect(pager["title"]?["en"]?.string == "Pager")
        let fields = pager["fields"]?.elements ?? []
        #expect(fields.compactMap { $0["name"]?.string } == ["api_key", "signing_key"])
        #expect(fields.compactMap { $0["form"]?.string } == ["secret", "secret"])
        #expect(fields.last?["label"]?["ja"]?.string == "署名キー")

        // Its own checks, by name; another kind's field is refused.
        let bad = [
            (#"{"kind": "pager", "api_key": "k-1234"}"#, "signing_key is missing"),
            (#"{"kind": "pager", "api_key": "has space", "signing_key": "s"}"#, "api_key is missing or not"),
            (#"{"kind": "pager", "api_key": "k", "signing_key": "s", "url": "http://x"}"#, "url is not a field of pager"),
        ]
        for (body, detail) in bad {
            let answer = await harness.send("POST", "/v1/channels", json: body)
            #expect(answer.status == 400, "\(body)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains(detail), "\(body)")
        }
        let added = await harness.send(
            "POST", "/v1/channels",
            json: #"{"kind": "pager", "api_key": "key-1234", "signing_key": "sign-5678", "kinds": ["changed"]}"#)
        #expect(added.status == 201)
        let text = String(decoding: added.body, as: UTF8.self)
        #expect(!text.contains("sign-5678") && !text.contains("key-1234"), "secrets are never shown")
        #expect(try JSON(data: added.body)["url"]?.string == "key …1234")

        _ = try await ChannelTests.changed(harness.store, owner: .local, now: harness.clock.now)
        let fake = ChannelTests.FakeService([])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: nil, publicURL: nil,
            offer: ChannelOffer(kinds: Self.kinds, server: ChannelServer(settings: ["pager": ["origin": "http://127.0.0.2:9"]])))
        #expect(await deliverer.deliverOnce() == 1)
        let request = try #require(fake.requests.withLock { $0.first })
        #expect(request.url.absoluteString == "http://127.0.0.2:9/v1/pages")
        #expect(request.headers["Authorization"] == "Key key-1234")
        #expect(
            request.headers["X-Pager-Signature"]
                == WebhookPayload.signature(of: request.body, secret: "sign-5678", at: harness.clock.now))
    }

    @Test("the OpenAPI document names the kind once, in the shared ChannelKind enum, with its fields")
    func documented() async throws {
        let harness = await Harness(configure: { $0.channelKinds = Self.kinds })
        let document = try JSON(data: await harness.get("/openapi.json").body)
        let kinds = document["components"]?["schemas"]?["ChannelKind"]?["enum"]?.elements.compactMap { $0.string }
        #expect(kinds == Self.kinds.names)
        let properties = document["paths"]?["/v1/channels"]?["post"]?["requestBody"]?["content"]?["application/json"]?[
            "schema"]?["properties"]
        #expect(properties?["kind"]?["$ref"]?.string == "#/components/schemas/ChannelKind")
        #expect(properties?["api_key"]?["writeOnly"] == .bool(true))
        #expect(properties?["signing_key"]?["description"]?.string?.hasPrefix("pager: Signing key") == true)
        // The standard server's document has no trace of it.
        let plain = try JSON(data: await Harness().get("/openapi.json").body)
        #expect(plain["components"]?["schemas"]?["ChannelKind"]?["enum"]?.elements.compactMap { $0.string }
            == ChannelKindRegistry.standard.names)
    }

    @Test("an operator's setting is checked by kind and name, in one line")
    func serverSettings() throws {
        #expect(try Self.kinds.serverSettings(["pager.origin=https://pager.example"])
            == ["pager": ["origin": "https://pager.example"]])
        for (given, words) in [
            ("pager.origin=ftp://x", "is not an http(s) URL"), ("pager.colour=red", "line.origin, pager.origin"),
            ("origin=https://x", "is not KIND.NAME=VALUE"), ("sms.origin=https://x", "is not KIND.NAME=VALUE"),
        ] {
            #expect(throws: ChannelSettingsError.self, "\(given)") { try Self.kinds.serverSettings([given]) }
            do {
                _ = try Self.kinds.serverSettings([given])
            } catch {
                #expect(error.message.contains(words), "\(given): \(error.message)")
            }
        }
    }
}
