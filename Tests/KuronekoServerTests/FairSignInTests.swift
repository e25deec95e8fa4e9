import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Testing

@testable import KuronekoServer
@testable import KuronekoStore

/// Sign-ins take their turn per client before the hash slots: behind a trusted reverse proxy the client is the
/// address the proxy names, so a flood of random names from one address costs a hash or two, not every slot.
@Suite("API: fair turns at the password door", .timeLimit(.minutes(5)))
struct FairSignInTests {
    static let proxy = ClientAddress.key("127.0.0.1")!

    static func attempt(
        _ harness: Harness, _ name: String, _ password: String, forwardedFor: String, from client: UInt64 = proxy
    ) async -> HTTPResponse {
        var request = HTTPRequest(
            method: "POST", target: "/v1/session",
            headers: ["content-type": "application/json", "x-forwarded-for": "198.51.100.1, \(forwardedFor)"],
            body: Data(#"{"name": "\#(name)", "password": "\#(password)"}"#.utf8))
        request.client = client
        return await harness.api.respond(to: request)
    }

    /// A server with mama's account whose reverse proxy, 127.0.0.1, is trusted.
    static func behindTheProxy() async throws -> Harness {
        let (harness, _) = try await SignInAPITests.withAccounts([("mama", .admin)])
        let trusted = await Harness(answer: { _, _ in throw URLError(.cannotConnectToHost) }) {
            $0.trustedProxies = ["127.0.0.1"]
            $0.database = harness.server.configuration.database
        }
        await trusted.keysChanged()
        return trusted
    }

    @Test("a flood of random names from one address behind the trusted proxy leaves a member's sign-ins working")
    func floodBehindTheProxy() async throws {
        let trusted = try await Self.behindTheProxy()
        let flood = Task {
            var statuses: [Int: Int] = [:]
            for round in 0..<10 {
                let wave = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            await Self.attempt(trusted, "guess\(round)-\(index)", "guess-password", forwardedFor: "203.0.113.5").status
                        }
                    }
                    return await group.reduce(into: [Int]()) { $0.append($1) }
                }
                for status in wave { statuses[status, default: 0] += 1 }
            }
            return statuses
        }
        var member: [Int] = []
        for _ in 0..<10 {
            member.append(await Self.attempt(trusted, "mama", "mama-password", forwardedFor: "203.0.113.9").status)
        }
        let flooded = await flood.value
        #expect(member == Array(repeating: 200, count: 10), "\(member)")
        // The flood met the throttle and its one turn: a handful of hashes, the rest refused before any.
        #expect(Set(flooded.keys).isSubset(of: [401, 429]), "\(flooded)")
        #expect((flooded[401] ?? 0) <= 6, "\(flooded)")
        #expect(flooded.values.reduce(0, +) == 200)
    }

    @Test("X-Forwarded-For counts only from the trusted proxy: from anyone else the socket's address is the client")
    func headerFromAStrangerIgnored() async throws {
        let trusted = try await Self.behindTheProxy()
        let stranger = ClientAddress.key("192.0.2.7")!
        // Seven failures from a stranger that claims a new address each time: all counted against its own.
        var statuses: [Int] = []
        for index in 0..<7 {
            statuses.append(
                await Self.attempt(trusted, "nobody\(index)", "guess-password", forwardedFor: "10.0.0.\(index)", from: stranger)
                    .status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        // Behind the proxy, another address is its own client.
        #expect(await Self.attempt(trusted, "mama", "mama-password", forwardedFor: "203.0.113.9").status == 200)
    }

    @Test("client addresses read as the adapter makes them from a socket")
    func addressKeys() {
        #expect(ClientAddress.key("127.0.0.1") == 1 + UInt64(UInt32(bigEndian: 0x7F00_0001)))
        #expect(ClientAddress.key("::ffff:127.0.0.1") == ClientAddress.key("127.0.0.1"))
        #expect(ClientAddress.key("::1") == UInt64(1) | (UInt64(1) << 63))
        #expect(ClientAddress.key("example.com") == nil && ClientAddress.key("") == nil && ClientAddress.key("1.2.3") == nil)
        var request = HTTPRequest(method: "GET", target: "/")
        request.client = ClientAddress.key("127.0.0.1")!
        #expect(request.clientIsLoopback)
    }
}
