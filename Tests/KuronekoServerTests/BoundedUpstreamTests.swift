import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

/// The real transport against upstreams that answer too much, redirect, or break mid-body.
@Suite("Upstream answers are bounded", .timeLimit(.minutes(10)))
struct BoundedUpstreamTests {
    private static func request(_ upstream: RawUpstream) -> UpstreamRequest {
        UpstreamRequest(
            url: upstream.endpoint, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("number00=1&number01=327754459830".utf8), timeout: .seconds(10))
    }

    private static func head(_ status: String, _ fields: [String]) -> Data {
        Data((["HTTP/1.1 \(status)"] + fields + ["Connection: close", "", ""]).joined(separator: "\r\n").utf8)
    }

    private static func failure(of upstream: RawUpstream, transport: CurlTransport = CurlTransport())
        async -> TransportError?
    {
        do {
            _ = try await transport.send(request(upstream))
            return nil
        } catch {
            return error as? TransportError
        }
    }

    @Test("a gzip answer that inflates past the cap is refused as too large, not read whole")
    func gzipBomb() async throws {
        // 64 MiB of zeros, about 64 KB compressed: 32 times the 2 MiB cap once inflated.
        let bomb = try #require(CompressionMiddleware.gzip(Data(count: 64 << 20), level: 9))
        #expect(bomb.count < 1 << 20)
        let upstream = try RawUpstream { socket in
            RawUpstream.write(
                socket,
                Self.head(
                    "200 OK",
                    ["Content-Type: text/html; charset=UTF-8", "Content-Encoding: gzip", "Content-Length: \(bomb.count)"])
                    + bomb)
        }
        let error = await Self.failure(of: upstream)
        #expect(error?.kind == .bodyTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("2048 KiB") == true, "\(String(describing: error))")
    }

    @Test("a declared body over the cap is refused before it is read")
    func declaredTooLarge() async throws {
        let upstream = try RawUpstream { socket in
            RawUpstream.write(socket, Self.head("200 OK", ["Content-Type: text/html", "Content-Length: 209715200"]))
            // Only a little of the 200 MB ever comes; the transport must not wait for the rest.
            RawUpstream.write(socket, Data(count: 65_536))
        }
        let error = await Self.failure(of: upstream)
        #expect(error?.kind == .bodyTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("209715200 bytes") == true, "\(String(describing: error))")
    }

    @Test("a plain body past the cap without a declared length is cut off at the cap")
    func undeclaredTooLarge() async throws {
        let upstream = try RawUpstream { socket in
            RawUpstream.write(socket, Self.head("200 OK", ["Content-Type: text/html"]))
            for _ in 0..<64 where RawUpstream.write(socket, Data(count: 65_536)) {}
        }
        let transport = CurlTransport(maximumBodyBytes: 256 * 1024)
        let error = await Self.failure(of: upstream, transport: transport)
        #expect(error?.kind == .bodyTooLarge, "\(String(describing: error))")
    }

    @Test("a body within the cap is answered whole")
    func withinCap() async throws {
        let page = Data(repeating: UInt8(ascii: "a"), count: 30_000)
        let upstream = try RawUpstream { socket in
            RawUpstream.write(socket, Self.head("200 OK", ["Content-Type: text/html", "Content-Length: 30000"]) + page)
        }
        let response = try await CurlTransport().send(Self.request(upstream))
        #expect(response.status == 200)
        #expect(response.body == page)
    }

    @Test("a redirect is answered as it came, not followed")
    func redirect() async throws {
        let followed = try RawUpstream { socket in
            RawUpstream.write(socket, Self.head("200 OK", ["Content-Length: 2"]) + Data("ok".utf8))
        }
        let upstream = try RawUpstream { socket in
            RawUpstream.write(
                socket, Self.head("302 Found", ["Location: \(followed.endpoint.absoluteString)", "Content-Length: 0"]))
        }
        let response = try await CurlTransport().send(Self.request(upstream))
        #expect(response.status == 302)
        #expect(followed.answeredCount == 0)
    }

    @Test("a reset in the middle of the body is a connection error, not a timeout")
    func resetMidBody() async throws {
        let upstream = try RawUpstream { socket in
            RawUpstream.write(socket, Self.head("200 OK", ["Content-Type: text/html", "Content-Length: 30000"]))
            RawUpstream.write(socket, Data(count: 1_000))
            RawUpstream.reset(socket)
        }
        let error = await Self.failure(of: upstream)
        #expect(error?.kind == .connection, "\(String(describing: error))")
    }
}
