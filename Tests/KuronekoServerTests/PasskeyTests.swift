import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Testing
import KuronekoCrypto
import KuronekoAccounts
@testable import KuronekoServer
@testable import KuronekoStore

/// Passkeys through the API with an authenticator in software (the P-256 key, the CBOR and the signatures an
/// authenticator makes): registered by a signed-in member, then signing in without a name; refused for another
/// site, an old or another ceremony's challenge, a bad signature, a replay, a copied key, a person taken out of
/// their lists; hostile bytes refused by name.
@Suite("Passkeys", .timeLimit(.minutes(5)))
struct PasskeyTests {
    static let host = "kuroneko.test"

    typealias Authenticator = TestAuthenticator

    static func post(_ harness: Harness, _ path: String, _ body: Any, cookie: String? = nil, csrf: String? = nil) async -> HTTPResponse {
        var headers = ["content-type": "application/json", "host": host]
        if let cookie { headers["cookie"] = "kuroneko_session=\(cookie)" }
        if let csrf { headers["x-csrf-token"] = csrf }
        let data = (body as? String).map { Data($0.utf8) } ?? (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        return await harness.api.respond(to: HTTPRequest(method: "POST", target: path, headers: headers, body: data))
    }

    static func challenge(_ response: HTTPResponse) throws -> String {
        try #require(try JSON(data: response.body)["challenge"]?.string)
    }

    @Test func registerThenSignInWithoutAName() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("mama", .admin), ("papa", .staff)])
        let mama = try await SignInAPITests.signIn(harness, "mama", "mama-password")
        var phone = Authenticator()

        let options = await Self.post(harness, "/v1/passkeys/options", [String: String](), cookie: mama.token, csrf: mama.csrf)
        #expect(options.status == 200, "\(String(decoding: options.body, as: UTF8.self))")
        let created = try JSON(data: options.body)
        #expect(created["rp"]?["id"]?.string == Self.host)
        #expect(created["pubKeyCredParams"]?.elements.first?["alg"]?.int == -7)
        let challenge = try Self.challenge(options)
        let registration: [String: String] = [
            "client_data": Base64URL.encode(Authenticator.clientData("webauthn.create", challenge)),
            "attestation": Base64URL.encode(phone.attestation()), "name": "ママのiPhone",
        ]
        // Without the CSRF token, or from another site, nothing is registered.
        #expect(await Self.post(harness, "/v1/passkeys", registration, cookie: mama.token).status == 403)
        var elsewhere = registration
        elsewhere["client_data"] = Base64URL.encode(Authenticator.clientData("webauthn.create", challenge, origin: "https://evil.test"))
        let phished = await Self.post(harness, "/v1/passkeys", elsewhere, cookie: mama.token, csrf: mama.csrf)
        #expect(phished.status == 400 && String(decoding: phished.body, as: UTF8.self).contains("another site"))
        var otherSite = registration
        otherSite["attestation"] = Base64URL.encode(phone.attestation(site: "evil.test"))
        #expect(await Self.post(harness, "/v1/passkeys", otherSite, cookie: mama.token, csrf: mama.csrf).status == 400)
        let added = await Self.post(harness, "/v1/passkeys", registration, cookie: mama.token, csrf: mama.csrf)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        // The same answer again: its challenge was taken.
        let twice = await Self.post(harness, "/v1/passkeys", registration, cookie: mama.token, csrf: mama.csrf)
        #expect(twice.status == 400 && String(decoding: twice.body, as: UTF8.self).contains("answered already"))
        // Papa cannot register with mama's challenge.
        let papa = try await SignInAPITests.signIn(harness, "papa", "papa-password")
        let stolen = await Self.post(harness, "/v1/passkeys", registration, cookie: papa.token, csrf: papa.csrf)
        #expect(stolen.status == 400 && String(decoding: stolen.body, as: UTF8.self).contains("challenge"))

        // Signing in: no name, the passkey says who.
        let signInOptions = await Self.post(harness, "/v1/session/passkey/options", [String: String]())
        #expect(signInOptions.status == 200)
        let signIn = await Self.post(harness, "/v1/session/passkey", phone.assertion(try Self.challenge(signInOptions)))
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
        #expect(try JSON(data: signIn.body)["name"]?.string == "mama")
        #expect(signIn.headers.contains { $0.0 == "Set-Cookie" && $0.1.contains("kuroneko_session=") })

        // The same answer again (a replay), a registration challenge, another site, a forged signature.
        let fresh = try Self.challenge(await Self.post(harness, "/v1/session/passkey/options", [String: String]()))
        let once = phone.assertion(fresh)
        #expect(await Self.post(harness, "/v1/session/passkey", once).status == 200)
        // (This authenticator counts: its counter refuses the replay before its challenge is looked at.)
        #expect(await Self.post(harness, "/v1/session/passkey", once).status == 400, "a replay")
        #expect(await Self.post(harness, "/v1/session/passkey", phone.assertion(challenge)).status == 400, "a registration's challenge")
        #expect(await Self.post(harness, "/v1/session/passkey", phone.assertion(fresh, origin: "https://evil.test")).status == 400)
        var forged = phone.assertion(fresh)
        forged["signature"] = Base64URL.encode(Authenticator.der(try P256KeyPair.generate().sign(Data("x".utf8))))
        #expect(await Self.post(harness, "/v1/session/passkey", forged).status == 400)
        // A copy of the authenticator whose counter is behind, answering a challenge of its own.
        var copy = phone
        copy.count = 1
        let another = try Self.challenge(await Self.post(harness, "/v1/session/passkey/options", [String: String]()))
        let behind = await Self.post(harness, "/v1/session/passkey", copy.assertion(another))
        #expect(behind.status == 400 && String(decoding: behind.body, as: UTF8.self).contains("counter"))
        // A passkey this server does not know.
        var stranger = Authenticator()
        #expect(await Self.post(harness, "/v1/session/passkey", stranger.assertion(fresh)).status == 401)

        // Listed and removed by its owner only.
        let listed = try JSON(data: await SignInAPITests.send(harness, "GET", "/v1/passkeys", cookie: mama.token).body)
        #expect(listed["passkeys"]?.elements.compactMap { $0["name"]?.string } == ["ママのiPhone"])
        let id = Base64URL.encode(phone.id)
        #expect(await SignInAPITests.send(harness, "DELETE", "/v1/passkeys/\(id)", cookie: papa.token, csrf: papa.csrf).status == 404)
        // Five refusals slow the passkey's next attempt (429); a second later it is let through again.
        let slowed = await Self.post(harness, "/v1/session/passkey", phone.assertion(fresh))
        #expect(slowed.status == 429 && slowed.headers.contains { $0.0 == "Retry-After" })
        harness.clock.advance(by: .seconds(2))
        // Taken out of every list, mama signs in with it no more.
        let mamaID = try #require(try await accounts.user(named: "mama")).id
        _ = try await accounts.removeMember(list: "local", user: mamaID)
        let out = await Self.post(
            harness, "/v1/session/passkey",
            phone.assertion(try Self.challenge(await Self.post(harness, "/v1/session/passkey/options", [String: String]()))))
        #expect(out.status == 403)
        let log = try await accounts.auditLog(list: "local", before: nil, limit: 20).map(\.action)
        #expect(log.contains("passkey_added"))
    }

    @Test func hostileAnswers() async throws {
        let (harness, _) = try await SignInAPITests.withAccounts([("mama", .admin)])
        let mama = try await SignInAPITests.signIn(harness, "mama", "mama-password")
        let challenge = try Self.challenge(await Self.post(harness, "/v1/passkeys/options", [String: String](), cookie: mama.token, csrf: mama.csrf))
        let client = Base64URL.encode(Authenticator.clientData("webauthn.create", challenge))
        var generator = SystemRandomNumberGenerator()
        var bodies: [Any] = [
            [String: String](), ["client_data": client], ["client_data": client, "attestation": "!!"],
            ["client_data": client, "attestation": 7], ["client_data": client, "attestation": String(repeating: "A", count: 20_000)],
            ["client_data": client, "attestation": Base64URL.encode(Data([0xBF, 0xFF]))],  // indefinite map
            ["client_data": client, "attestation": Base64URL.encode(Data([0x9B] + [UInt8](repeating: 0xFF, count: 8)))],
            ["client_data": client, "attestation": Base64URL.encode(Data(repeating: 0x81, count: 100) + Data([0]))],  // deep
            ["client_data": client, "attestation": Base64URL.encode(Authenticator().attestation()), "extra": 1],
            ["client_data": client, "attestation": Base64URL.encode(Authenticator().attestation()), "name": "a\u{7}"],
        ]
        for _ in 0..<200 {
            bodies.append([
                "client_data": client,
                "attestation": Base64URL.encode(Data((0..<Int.random(in: 1...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ])
        }
        for body in bodies {
            let answer = await Self.post(harness, "/v1/passkeys", body, cookie: mama.token, csrf: mama.csrf)
            #expect(answer.status == 400, "\(body): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        for body: Any in [["id": "x"], ["id": 1, "client_data": "a", "authenticator_data": "a", "signature": "a"], "[]"] {
            #expect(await Self.post(harness, "/v1/session/passkey", body).status == 400)
        }
        // The pure parts: a DER signature round trip, a challenge for one purpose only and only while fresh.
        let raw = try P256KeyPair.generate().sign(Data("m".utf8))
        #expect(Passkey.rawSignature(fromDER: Authenticator.der(raw)) == raw)
        #expect(Passkey.rawSignature(fromDER: Data([0x30, 0x02, 0x02, 0x00])) == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let made = PasskeyChallenge.make(purpose: "signin", key: "k", now: now)
        #expect(PasskeyChallenge.isValid(made, purpose: "signin", key: "k", now: now + 299))
        #expect(!PasskeyChallenge.isValid(made, purpose: "signin", key: "k", now: now + 301))
        #expect(!PasskeyChallenge.isValid(made, purpose: "register:1", key: "k", now: now))
        #expect(!PasskeyChallenge.isValid(made, purpose: "signin", key: "other", now: now))
    }
}
