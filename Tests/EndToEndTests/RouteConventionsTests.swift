import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoSimulator
import KuronekoTestSupport
import Testing

/// The API's HTTP conventions, checked twice with one test client: in-process, and through libmicrohttpd
/// against `kuroneko serve --demo`, so that what the adapter does (headers, bodies, 204 and 304) is covered.
@Suite("API conventions, in-process and through the socket", .serialized)
struct RouteConventionsTests {
    private static let origin = "https://shop.example"

    /// The server `serve --demo --min-interval 0 --cors-origins https://shop.example` runs, built the same way
    /// (``Server``), on a watch list of its own.
    private static func inProcess() async throws -> InProcessClient {
        var configuration = Server.Configuration()
        configuration.carriers = [.yamato]
        configuration.client.minimumRequestInterval = .zero
        // One setting differs from serve's: no 10 s queue deadline. In-process, the server shares this test
        // process's cooperative threads with every other test running at once, and a deadline would measure
        // how long those keep them, not the server.
        configuration.client.lookupDeadline = nil
        configuration.client.endpoint =
            URL(string: "http://simulator.invalid/cgi-bin/tneko") ?? configuration.client.endpoint
        configuration.corsOrigins = [origin]
        configuration.upstreamName = "demo-simulator"
        configuration.database =
            FileManager.default.temporaryDirectory.appendingPathComponent("conventions-\(UUID().uuidString).sqlite")
            .path
        let server = try await Server.make(
            configuration: configuration,
            transport: SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock())), clock: SystemClock(),
            notices: Logger.silent)
        return InProcessClient(server.application)
    }

    /// Runs `check` with each client.
    private func withEachClient(_ check: (any APITestClient) async throws -> Void) async throws {
        try await check(try Self.inProcess())
        let server = try await ServerProcess(["serve", "--demo", "--min-interval", "0", "--cors-origins", Self.origin])
        defer { server.terminate() }
        try await check(SocketClient(port: server.port))
    }

    @Test("a shipment: ETag, Cache-Control, Age and X-Request-ID; 304 for a matching If-None-Match")
    func conditional() async throws {
        try await withEachClient { client in
            let first = try await client.get("/v1/shipments/3277-5445-9830", headers: ["X-Request-ID": "route-test-1"])
            #expect(first.status == 200, "\(client)")
            #expect(first.header("X-Request-ID") == "route-test-1", "\(client)")
            let tag = try #require(first.header("ETag"), "\(client)")
            #expect(first.header("Cache-Control")?.hasPrefix("max-age=") == true, "\(client)")
            #expect(first.header("Age") != nil, "\(client)")
            let again = try await client.get("/v1/shipments/327754459830", headers: ["If-None-Match": tag])
            #expect(again.status == 304, "\(client)")
            #expect(again.body.isEmpty, "\(client)")
        }
    }

    @Test("errors are problem documents; OPTIONS is 204 with Allow; a preflight from the allowed origin is 204")
    func errorsAndOptions() async throws {
        try await withEachClient { client in
            let bad = try await client.get("/v1/shipments/1234-5678-9015")
            #expect(bad.status == 400, "\(client)")
            #expect(bad.header("Content-Type") == "application/problem+json", "\(client)")
            #expect(try await client.get("/nowhere").status == 404, "\(client)")
            let wrong = try await client.send("DELETE", "/healthz", headers: [:], body: Data())
            #expect(wrong.status == 405, "\(client)")
            #expect(wrong.header("Allow") == "GET, HEAD, OPTIONS", "\(client)")
            let options = try await client.send("OPTIONS", "/v1/shipments/query", headers: [:], body: Data())
            #expect(options.status == 204, "\(client)")
            #expect(options.header("Allow") == "POST, OPTIONS", "\(client)")
            let preflight = try await client.send(
                "OPTIONS", "/v1/shipments/query",
                headers: ["Origin": Self.origin, "Access-Control-Request-Method": "POST"], body: Data())
            #expect(preflight.status == 204, "\(client)")
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.origin, "\(client)")
            let cross = try await client.get("/healthz", headers: ["Origin": Self.origin])
            #expect(cross.header("Access-Control-Allow-Origin") == Self.origin, "\(client)")
        }
    }

    @Test("a list over 1 KB is gzipped for a client that accepts it")
    func compression() async throws {
        try await withEachClient { client in
            let numbers = ValidNumbers.numbers(5, from: 62_000_000_000).map(\.digits).joined(separator: ",")
            let plain = try await client.get("/v1/shipments?numbers=\(numbers)")
            #expect(plain.status == 200, "\(client)")
            let zipped = try await client.get("/v1/shipments?numbers=\(numbers)", headers: ["Accept-Encoding": "gzip"])
            #expect(zipped.header("Content-Encoding") == "gzip", "\(client)")
            #expect(zipped.header("Vary")?.contains("Accept-Encoding") == true, "\(client)")
            #expect(zipped.body.prefix(2) == Data([0x1F, 0x8B]), "\(client): a gzip member")
            #expect(zipped.body.count < plain.body.count, "\(client)")
        }
    }
}
