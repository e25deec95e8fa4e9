import Foundation
import Testing

/// The first account from the link a new server prints: `serve` on a database without accounts says a one-time
/// link; opened, it makes the admin of every list, who then signs in; a server with an account prints none.
@Suite("The set-up link", .timeLimit(.minutes(5)))
struct SetUpLinkTests {
    static func status(of answer: String) -> Int {
        Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func post(_ port: Int, _ path: String, _ body: String) async throws -> String {
        try await RawConnection(port: port).request(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    @Test("listening on every address, the link names one a phone can open, never 0.0.0.0")
    func everyAddress() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("setup-\(UUID().uuidString).sqlite").path
        let server = try await ServerProcess(["serve", "--demo", "--host", "0.0.0.0", "--db", database], host: #"0\.0\.0\.0"#)
        defer { try? FileManager.default.removeItem(atPath: database) }
        #expect(await server.waitForLog("no account yet: http://", timeout: .seconds(60)))
        let host = try #require(server.logSoFar.firstMatch(of: /no account yet: http:\/\/([^:\/]+):/)?.1).description
        #expect(host != "0.0.0.0", "\(server.logSoFar)")
        _ = await server.stop()
    }

    @Test func firstAccountFromTheLink() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("setup-\(UUID().uuidString).sqlite").path
        let server = try await ServerProcess(["serve", "--demo", "--db", database])
        #expect(await server.waitForLog("no account yet: http://127.0.0.1:\(server.port)/join#inv_", timeout: .seconds(60)))
        let token = try #require(server.logSoFar.firstMatch(of: /join#(inv_[0-9a-f]{64})/)?.1).description
        // Until then the API is open; a guessed token makes nothing.
        let open = try await RawConnection(port: server.port).request("GET /v1/watches HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(Self.status(of: open) == 200)
        let guess = try await Self.post(
            server.port, "/v1/invitations/accept", #"{"token": "inv_\#(String(repeating: "0", count: 64))", "name": "eve", "password": "eve-password"}"#)
        #expect(Self.status(of: guess) == 410, "\(guess)")
        let joined = try await Self.post(
            server.port, "/v1/invitations/accept", #"{"token": "\#(token)", "name": "mama", "password": "mama-password"}"#)
        #expect(Self.status(of: joined) == 201 && joined.contains(#""role":"admin""#), "\(joined)")
        let again = try await Self.post(
            server.port, "/v1/invitations/accept", #"{"token": "\#(token)", "name": "papa", "password": "papa-password"}"#)
        #expect(Self.status(of: again) == 410, "the link works once")
        // The account it made signs in, as the list's admin.
        let signedIn = try await Self.post(server.port, "/v1/session", #"{"name": "mama", "password": "mama-password"}"#)
        #expect(Self.status(of: signedIn) == 200 && signedIn.contains(#""role":"admin""#), "\(signedIn)")
        _ = await server.stop()
        let second = try await ServerProcess(["serve", "--demo", "--db", database])
        _ = await second.stop()
        #expect(!second.logSoFar.contains("no account yet"))
    }
}
