import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import Synchronization
import Testing

/// The middleware around the API, in-process: request ids, the access log, metrics with bounded labels,
/// conditional requests, compression, CORS.
@Suite("API middleware", .timeLimit(.minutes(10)))
struct MiddlewareTests {
    @Test("a shipment carries Cache-Control, Age and a strong ETag; If-None-Match gives 304, on the fast path too")
    func conditionalRequests() async throws {
        let harness = await Harness(cache: .init(activeTTL: .seconds(300)))
        let first = await harness.get("/v1/shipments/327754459830")
        let tag = try #require(first.header("ETag"))
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.hasPrefix("W/"))
        #expect(first.header("Cache-Control") == "max-age=300")
        #expect(first.header("Age") == "0")
        harness.clock.advance(by: .seconds(100))
        #expect(harness.answeredAtOnce("/v1/shipments/327754459830"))
        let cached = await harness.get("/v1/shipments/327754459830")
        #expect(cached.header("ETag") == tag)
        #expect(cached.header("Cache-Control") == "max-age=200")
        #expect(cached.header("Age") == "100")
        let unchanged = await harness.get("/v1/shipments/327754459830", headers: ["If-None-Match": tag])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.header("ETag") == tag)
        let other = await harness.get("/v1/shipments/327754459830", headers: ["If-None-Match": "\"0000\", W/\(tag)"])
        #expect(other.status == 304, "weak comparison, any tag of a list")
        #expect(await harness.get("/v1/shipments/327754459830", headers: ["If-None-Match": "\"x\""]).status == 200)
        // A list gets a tag over its body.
        let list = await harness.get("/v1/shipments?numbers=327754459830")
        let listTag = try #require(list.header("ETag"))
        #expect(
            await harness.get("/v1/shipments?numbers=327754459830", headers: ["If-None-Match": listTag]).status == 304)
    }

    @Test("gzip when accepted and the body is over 1 KB; the body unzips to the same bytes")
    func compression() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(20, from: 61_000_000_000).map(\.digits).joined(separator: ",")
        let plain = await harness.get("/v1/shipments?numbers=\(numbers)")
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == "Accept-Encoding")
        let zipped = await harness.get(
            "/v1/shipments?numbers=\(numbers)", headers: ["Accept-Encoding": "br, gzip;q=0.8"])
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(zipped.body.count * 4 < plain.body.count)
        #expect(try await gunzip(zipped.body) == plain.body)
        #expect(zipped.header("ETag") == plain.header("ETag").map { String($0.dropLast()) + "-gzip\"" })
        let refused = await harness.get("/v1/shipments?numbers=\(numbers)", headers: ["Accept-Encoding": "gzip;q=0"])
        #expect(refused.header("Content-Encoding") == nil)
        let small = await harness.get("/healthz", headers: ["Accept-Encoding": "gzip"])
        #expect(small.header("Content-Encoding") == nil)
        // The gzip variant's tag still matches for If-None-Match.
        let again = await harness.get(
            "/v1/shipments?numbers=\(numbers)",
            headers: ["Accept-Encoding": "gzip", "If-None-Match": zipped.header("ETag") ?? ""])
        #expect(again.status == 304)
    }

    @Test("request ids: a sane one is echoed, anything else replaced; every access-log line has it and a time")
    func requestIDsAndLog() async throws {
        let harness = await Harness()
        let echoed = await harness.get("/healthz", headers: ["X-Request-ID": "abc-123"])
        #expect(echoed.header("X-Request-ID") == "abc-123")
        let tooLong = await harness.get("/healthz", headers: ["X-Request-ID": String(repeating: "a", count: 65)])
        let replaced = try #require(tooLong.header("X-Request-ID"))
        #expect(replaced.count <= 64 && replaced != String(repeating: "a", count: 65))
        let control = await harness.get("/healthz", headers: ["X-Request-ID": "a\u{1}b"])
        #expect(control.header("X-Request-ID") != "a\u{1}b")
        let generated = [
            await harness.get("/healthz").header("X-Request-ID"), await harness.get("/healthz").header("X-Request-ID"),
        ].compactMap { $0 }
        #expect(generated.count == 2 && generated[0] != generated[1])
        for id in generated { #expect(id.wholeMatch(of: /[0-9a-f]{1,8}-[0-9a-f]+/) != nil, "\(id)") }
        let counters = generated.compactMap { $0.split(separator: "-").last.flatMap { UInt64($0, radix: 16) } }
        #expect(counters.count == 2 && counters[1] > counters[0])
        _ = await harness.api.respond(to: HTTPRequest(method: "B\u{7}AD\n\"", path: "/v1/shipments/\u{1}x"))
        let logged = harness.log.all
        #expect(logged.count == 6)
        #expect(logged[0].contains(" id=abc-123 "))
        #expect(logged[0].contains(" route=/healthz status=200 "))
        let time = try #require(logged[0].split(separator: " ").first { $0.hasPrefix("time=") })
        #expect(time.wholeMatch(of: /time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        let duration = try #require(logged[0].split(separator: " ").first { $0.hasPrefix("duration_ms=") })
        #expect(duration.wholeMatch(of: /duration_ms=\d+\.\d{3}/) != nil, "\(duration)")
        #expect(logged.allSatisfy { $0.hasPrefix("request time=") && !$0.hasSuffix(" ") })
        #expect(logged[5].contains(" method=other route=unmatched status=405 ") || logged[5].contains(" method=other "))
        for line in logged {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line)")
        }
    }

    @Test("2,000 requests with random methods and paths grow /metrics by less than 4 KB, and it stays parseable")
    func boundedMetrics() async throws {
        let harness = await Harness()
        _ = await harness.get("/healthz")
        let before = await harness.get("/metrics").body.count
        var generator = LinearCongruentialGenerator(seed: 7)
        for _ in 0..<2_000 {
            let method = String(
                (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                    Character(UnicodeScalar(UInt8.random(in: 33...126, using: &generator)))
                })
            let path =
                "/"
                + String(
                    (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                        Character(UnicodeScalar(UInt8.random(in: 33...126, using: &generator)))
                    })
            _ = await harness.api.respond(to: HTTPRequest(method: method, path: path))
        }
        _ = await harness.api.respond(to: HTTPRequest(method: "A\"B", path: "/healthz"))
        let text = String(decoding: await harness.get("/metrics").body, as: UTF8.self)
        #expect(text.utf8.count - before < 4_096, "grew by \(text.utf8.count - before) bytes")
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            // name{labels} value, every label value a plain quoted string.
            #expect(
                line.range(of: #"^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? [0-9.e+-]+$"#, options: .regularExpression)
                    != nil, "\(line)")
        }
        #expect(text.contains(#"kuroneko_http_requests_total{method="other",route="unmatched",status="404"}"#))
        #expect(text.contains("kuroneko_build_info{version="))
        #expect(text.contains("process_resident_memory_bytes "))
        #expect(text.contains("kuroneko_http_requests_in_flight "))
        #expect(text.contains(#"kuroneko_http_request_duration_seconds_bucket{route="/healthz",le="0.001"}"#))
    }

    @Test("CORS: a preflight from an allowed origin gets 204 with methods and headers; answers name the origin")
    func cors() async throws {
        let harness = await Harness(corsOrigins: ["https://shop.example"])
        let preflight = await harness.api.respond(
            to: HTTPRequest(
                method: "OPTIONS", path: "/v1/shipments/327754459830",
                headers: ["Origin": "https://shop.example", "Access-Control-Request-Method": "GET"]))
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://shop.example")
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("GET") == true)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("If-None-Match") == true)
        let methods = Set((preflight.header("Access-Control-Allow-Methods") ?? "").split(separator: ", ").map(String.init))
        #expect(methods.isSuperset(of: ["GET", "HEAD", "POST", "DELETE"]), "every method a route has")
        let headers = Set((preflight.header("Access-Control-Allow-Headers") ?? "").split(separator: ", ").map(String.init))
        #expect(headers.isSuperset(of: ["Authorization", "Content-Type", "If-None-Match", "X-Request-ID"]))
        let answer = await harness.get("/healthz", headers: ["Origin": "https://shop.example"])
        #expect(answer.header("Access-Control-Allow-Origin") == "https://shop.example")
        #expect(answer.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
        let stranger = await harness.get("/healthz", headers: ["Origin": "https://evil.example"])
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
        // OPTIONS without a preflight: 204 with Allow.
        let options = await harness.api.respond(to: HTTPRequest(method: "OPTIONS", path: "/v1/shipments/query"))
        #expect(options.status == 204)
        #expect(options.header("Allow") == "POST, OPTIONS")

        let open = await Harness(corsOrigins: ["*"])
        #expect(await open.get("/healthz", headers: ["Origin": "null"]).header("Access-Control-Allow-Origin") == "*")
        let closed = await Harness()
        #expect(
            await closed.get("/healthz", headers: ["Origin": "https://shop.example"]).header(
                "Access-Control-Allow-Origin") == nil)
    }

    /// A repeatable stream of random numbers.
    private struct LinearCongruentialGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }
}
