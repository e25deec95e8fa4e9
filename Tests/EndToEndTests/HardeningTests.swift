import Foundation
import KuronekoTestSupport
import Testing

/// `kuroneko serve` against hostile framing, on raw sockets.
@Suite("kuroneko serve: hostile requests", .serialized, .timeLimit(.minutes(10)))
struct HardeningTests {
    private static func status(of answer: String) -> Int? {
        answer.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    @Test(
        "ambiguous framing and hidden path bytes are refused with 400 and the connection closed",
        arguments: [
            "POST /v1/shipments/query HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\nContent-Length: 40\r\n\r\n{\"numbers\":[]}",
            "POST /v1/shipments/query HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST /v1/shipments/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "GET /v1/shipments/327754459830%00junk HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /healthz%0a HTTP/1.1\r\nHost: x\r\n\r\n",
            // A raw NUL in the request line: libmicrohttpd cuts the target there; the server refuses it.
            "GET /healthz\u{0}junk HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/shipments/327754459830\u{0} HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /healthz?q=\u{1} HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /healthz HTTP/1.1\r\n\r\n",
        ])
    func refused(request: String) async throws {
        let server = try await ServerProcess(["serve", "--demo"])
        defer { server.terminate() }
        let connection = try RawConnection(port: server.port)
        let answer = try await connection.request(request)
        #expect(Self.status(of: answer) == 400, "\(answer)")
        #expect(answer.lowercased().contains("connection: close"), "\(answer)")
        let statusLines = answer.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        #expect(statusLines.count == 1, "exactly one response: \(answer)")
        #expect(answer.contains("application/problem+json"), "\(answer)")
        // The server is still there for the next client.
        #expect(
            Self.status(of: try await RawConnection(port: server.port).request("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
                == 200)
    }

    /// libmicrohttpd 0.9.75 (Debian 12's) parses Content-Length itself and refuses a malformed one before
    /// the server sees the request; it writes its status line and headers twice (a known gap, in
    /// docs/ARCHITECTURE.md). The refusal and the closed connection are still asserted.
    @Test("a malformed Content-Length is refused by libmicrohttpd with 400 and the connection closed")
    func malformedLength() async throws {
        let server = try await ServerProcess(["serve", "--demo"])
        defer { server.terminate() }
        let answer = try await RawConnection(port: server.port).request(
            "POST /v1/shipments/query HTTP/1.1\r\nHost: x\r\nContent-Length: 13, 40\r\n\r\n{\"numbers\":[]}")
        #expect(Self.status(of: answer) == 400, "\(answer)")
        #expect(answer.lowercased().contains("connection: close"), "\(answer)")
    }

    @Test("a declared body over the limit with Expect: 100-continue gets 413 before any body is sent")
    func expectContinue() async throws {
        let server = try await ServerProcess(["serve", "--demo"])
        defer { server.terminate() }
        let answer = try await RawConnection(port: server.port).request(
            "POST /v1/shipments/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 10000000\r\nExpect: 100-continue\r\n\r\n")
        #expect(Self.status(of: answer) == 413, "\(answer)")
        #expect(!answer.contains("100 Continue"))
        #expect(answer.contains(#""reason":"body_too_large""#), "a stable code a client can word: \(answer)")
    }
}
