import Foundation
import KuronekoTestSupport
import Testing

/// `/readyz` names every carrier's circuit, not Yamato's alone.
@Suite("Readiness", .timeLimit(.minutes(3)))
struct ReadinessTests {
    @Test func everyCarriersCircuit() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("ready-\(UUID().uuidString).sqlite").path
        let server = try await ServerProcess(["serve", "--demo", "--db", database])
        defer { try? FileManager.default.removeItem(atPath: database) }
        let answer = try await RawConnection(port: server.port).request("GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
        let circuits = try JSON(data: Data(body.utf8))["circuits"]
        for carrier in ["yamato", "sagawa", "japanpost", "fukuyama", "seino"] {
            #expect(circuits?[carrier]?.string == "closed", "\(carrier): \(body)")
        }
        _ = await server.stop()
    }
}
