import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoTestSupport
import Testing

/// The REST API in-process: a scripted upstream, a manual clock, no sockets.
@Suite("API responder", .timeLimit(.minutes(10)))
struct APIResponderTests {
    private static func json(_ response: HTTPResponse) async throws -> JSON { try JSON(data: response.body) }

    @Test("one shipment: fetched on a miss, then answered from the cache, with fetched_at")
    func oneShipment() async throws {
        let harness = await Harness()
        let first = await harness.get("/v1/shipments/3277-5445-9830")
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "miss")
        let body = try await Self.json(first)
        #expect(body["tracking_number"] == .string("327754459830"))
        #expect(body["fetched_at"] != nil)
        #expect(body["status"]?["label_en"] != nil)

        let second = await harness.get("/v1/shipments/327754459830")
        #expect(second.header("X-Cache") == "hit")
        #expect(harness.answeredAtOnce("/v1/shipments/327754459830"))
        #expect(await harness.transport.calls.count == 1)
    }

    @Test("a bad number is a 400 problem naming it")
    func badNumber() async throws {
        let response = await Harness().get("/v1/shipments/1234-5678-9015")
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        let problem = try JSONDecoder().decode(ProblemDetails.self, from: response.body)
        #expect(problem.detail == "\"1234-5678-9015\" check digit is 5, expected 3")
    }

    @Test("several numbers: request order, invalid ones in errors, limits enforced")
    func severalNumbers() async throws {
        let harness = await Harness()
        let response = await harness.get("/v1/shipments?numbers=623023866161,12x,327754459830")
        #expect(response.status == 200)
        let body = try await Self.json(response)
        #expect(
            body["shipments"]?.elements.compactMap { $0["tracking_number"] } == [
                .string("623023866161"), .string("327754459830"),
            ])
        #expect(body["errors"]?.elements.first?["input"] == .string("12x"))
        #expect(body["errors"]?.elements.first?["code"] == .string("invalid_number"))

        let tooMany = (0..<51).map { _ in "327754459830" }.joined(separator: ",")
        #expect(await harness.get("/v1/shipments?numbers=\(tooMany)").status == 400)
        let post = await harness.api.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/shipments/query", body: Data(#"{"numbers": ["327754459830"]}"#.utf8)))
        #expect(post.status == 200)
        let badBody = await harness.api.respond(
            to: HTTPRequest(method: "POST", path: "/v1/shipments/query", body: Data("numbers".utf8)))
        #expect(badBody.status == 400)
    }

    @Test("1,000 concurrent lookups of 200 numbers cost 20 POSTs, and everyone gets an answer")
    func coalescing() async throws {
        // The batching window never elapses on this clock: only full batches of ten leave.
        let harness = await Harness(batchWindow: .milliseconds(20))
        let numbers = ValidNumbers.numbers(200, from: 40_000_000_000)
        let answered = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<1_000 {
                let number = numbers[index % numbers.count]
                group.addTask { await harness.get("/v1/shipments/\(number.digits)").status == 200 }
            }
            var count = 0
            for await ok in group where ok { count += 1 }
            return count
        }
        #expect(answered == 1_000)
        let posts = await harness.transport.calls.count
        #expect(posts == 20)
    }

    @Test("when the upstream fails, a cached copy is served as stale; without one, the error says what to do")
    func upstreamFailures() async throws {
        let failing = AsyncFlag()
        let harness = await Harness(cache: .init(activeTTL: .seconds(60))) { _, request in
            if await failing.isSet {
                throw TransportError(.timeout, "upstream did not answer within the request timeout")
            }
            return UpstreamResponse(
                status: 200, headers: [:],
                body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
        }
        #expect(await harness.get("/v1/shipments/327754459830").status == 200)
        await failing.set()
        harness.clock.advance(by: .seconds(61))
        let stale = await harness.get("/v1/shipments/327754459830")
        #expect(stale.status == 200)
        #expect(stale.header("X-Cache") == "stale")

        let timeout = await harness.get("/v1/shipments/623023866161")
        #expect(timeout.status == 504)
        // Three failed POSTs in a row open the circuit: 503 with Retry-After, and not ready.
        _ = await harness.get("/v1/shipments/443496171020")
        let open = await harness.get("/v1/shipments/380331823605")
        #expect(open.status == 503)
        #expect(open.header("Retry-After") == "30")
        #expect((await harness.get("/readyz")).status == 503)
        #expect(await harness.transport.calls.count == 4)
    }

    @Test("a page the parser refuses is a 502")
    func badGateway() async throws {
        let harness = await Harness { _, _ in
            UpstreamResponse(status: 200, headers: [:], body: Data("<html><title>x</title></html>".utf8))
        }
        let response = await harness.get("/v1/shipments/327754459830")
        #expect(response.status == 502)
        let problem = try JSONDecoder().decode(ProblemDetails.self, from: response.body)
        #expect(problem.detail.contains("unrecognised page layout"))
    }

    @Test("every route is in openapi.json, with its method")
    func openAPICoversRoutes() async throws {
        let harness = await Harness()
        let response = await harness.get("/openapi.json")
        let document = try await Self.json(response)
        #expect(document["openapi"] == .string("3.1.0"))
        guard case .object(let paths)? = document["paths"] else {
            Issue.record("openapi.json has no paths")
            return
        }
        for route in harness.api.application.routes {
            #expect(paths[route.pattern]?[route.method.lowercased()] != nil, "\(route.method) \(route.pattern)")
        }
        #expect(paths.count == Set(harness.api.application.routes.map(\.pattern)).count)
    }

    @Test("metrics count requests, cache results and upstream POSTs in Prometheus text")
    func metrics() async throws {
        let harness = await Harness()
        _ = await harness.get("/v1/shipments/327754459830")
        _ = await harness.get("/v1/shipments/327754459830")
        let text = String(decoding: (await harness.get("/metrics")).body, as: UTF8.self)
        #expect(
            text.contains(#"kuroneko_http_requests_total{method="GET",route="/v1/shipments/{number}",status="200"} 2"#))
        #expect(text.contains(#"kuroneko_cache_lookups_total{result="hit"} 1"#))
        #expect(text.contains(#"kuroneko_cache_lookups_total{result="miss"} 1"#))
        #expect(text.contains(#"kuroneko_upstream_requests_total{carrier="yamato"} 1"#))
        #expect(text.contains(#"kuroneko_upstream_batch_size_bucket{carrier="yamato",le="1.0"} 1"#))
    }

    @Test("unknown routes are 404, wrong methods 405, as problem documents")
    func notFound() async throws {
        let harness = await Harness()
        #expect(await harness.get("/v2/anything").status == 404)
        let wrongMethod = await harness.api.respond(to: HTTPRequest(method: "DELETE", path: "/healthz"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "GET, HEAD, OPTIONS")
        // A literal path segment wins over a parameter: "query" is not a tracking number.
        let query = await harness.get("/v1/shipments/query")
        #expect(query.status == 405)
        #expect(query.header("Allow") == "POST, OPTIONS")
        #expect(await harness.get("/v1/shipments/327754459830?refresh=yes").status == 400)
    }
}

/// A switch a scripted upstream reads.
actor AsyncFlag {
    private(set) var isSet = false
    func set() { isSet = true }
}
