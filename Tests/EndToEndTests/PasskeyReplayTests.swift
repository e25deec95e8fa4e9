import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing
import KuronekoCrypto
import KuronekoAccounts

/// A passkey's answer is taken once, on any server of a shared database: a captured sign-in sent again is refused
/// on the server that took it and on another, even from an authenticator without a counter (which always says 0).
@Suite(
    "passkey challenges used once, on every server", .timeLimit(.minutes(5)),
    .enabled(if: PostgresForTests.settings != nil, "needs KURONEKO_TEST_POSTGRES (scripts/test sets it)"))
struct PasskeyReplayTests {
    static func server(_ database: String) async throws -> Server {
        var configuration = Server.Configuration()
        configuration.carriers = [.yamato]
        configuration.database = database
        configuration.keyRefresh = .zero
        let clock = ManualClock()
        let server = try await Server.make(
            configuration: configuration, transport: ScriptedTransport.pages(clock: clock), clock: clock,
            notices: Logger.silent)
        return server
    }

    static func post(_ server: Server, _ path: String, _ body: [String: String], cookie: String? = nil, csrf: String? = nil)
        async -> HTTPResponse
    {
        var headers = ["content-type": "application/json", "host": TestAuthenticator.host]
        if let cookie { headers["cookie"] = "kuroneko_session=\(cookie)" }
        if let csrf { headers["x-csrf-token"] = csrf }
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        return await server.application.respond(to: HTTPRequest(method: "POST", target: path, headers: headers, body: data))
    }

    static func challenge(_ server: Server, _ path: String, cookie: String? = nil, csrf: String? = nil) async throws -> String {
        let options = await post(server, path, [:], cookie: cookie, csrf: csrf)
        return try #require(try JSON(data: options.body)["challenge"]?.string, "\(String(decoding: options.body, as: UTF8.self))")
    }

    @Test("a counterless authenticator's sign-in replayed on the same server and on another is refused")
    func replayedEverywhere() async throws {
        let database = try await PostgresForTests.freshDatabaseURL()
        let first = try await Self.server(database)
        let second = try await Self.server(database)
        let accounts = try #require(first.store as? any AccountStore)
        _ = try await accounts.createUser(
            name: "mama", displayName: "ママ",
            passwordHash: Passwords.hash("mama-password", parameters: .init(logN: 10)), at: Date())
        await first.keyRing.refresh()
        await second.keyRing.refresh()

        // Mama signs in with her password on the first server and adds a passkey without a counter.
        let signedIn = await Self.post(first, "/v1/session", ["name": "mama", "password": "mama-password"])
        #expect(signedIn.status == 200, "\(String(decoding: signedIn.body, as: UTF8.self))")
        let cookie = signedIn.headers.first { $0.0 == "Set-Cookie" }?.1.split(separator: ";").first
            .map { String($0.dropFirst("kuroneko_session=".count)) }
        let csrf = try JSON(data: signedIn.body)["csrf_token"]?.string
        var phone = TestAuthenticator(counterless: true)
        let registering = try await Self.challenge(first, "/v1/passkeys/options", cookie: cookie, csrf: csrf)
        let registration = [
            "client_data": Base64URL.encode(TestAuthenticator.clientData("webauthn.create", registering)),
            "attestation": Base64URL.encode(phone.attestation()),
        ]
        #expect(await Self.post(first, "/v1/passkeys", registration, cookie: cookie, csrf: csrf).status == 201)
        // The same registration again, on the other server: its challenge was taken.
        let again = await Self.post(second, "/v1/passkeys", registration, cookie: cookie, csrf: csrf)
        #expect(again.status == 400 || again.status == 409, "\(String(decoding: again.body, as: UTF8.self))")

        // A sign-in, taken once; sent again here and on the other server, refused as answered already.
        let answer = phone.assertion(try await Self.challenge(first, "/v1/session/passkey/options"))
        #expect(await Self.post(first, "/v1/session/passkey", answer).status == 200)
        for server in [first, second] {
            let replayed = await Self.post(server, "/v1/session/passkey", answer)
            #expect(replayed.status == 400, "\(String(decoding: replayed.body, as: UTF8.self))")
            #expect(String(decoding: replayed.body, as: UTF8.self).contains("answered already"))
        }
        // A new answer of the same authenticator (its counter still 0) to a new challenge signs in on the other.
        let fresh = phone.assertion(try await Self.challenge(second, "/v1/session/passkey/options"))
        #expect(await Self.post(second, "/v1/session/passkey", fresh).status == 200)
    }
}
