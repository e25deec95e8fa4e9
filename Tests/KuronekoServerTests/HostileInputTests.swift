import Foundation
import KuronekoHTTP
import KuronekoTestSupport
import Testing

/// Thousands of hostile requests at every route, in-process: bodies, path parameters, query strings and
/// headers from a seeded generator, and random JSON for the watch routes. Nothing may trap (a trap ends the
/// test process), and every answer must be a status the OpenAPI document gives for that route (404 or 405
/// where no route matches), every 4xx and 5xx a problem document with the same status.
@Suite("Hostile input at every route", .timeLimit(.minutes(10)))
struct HostileInputTests {
    /// A small deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    static let hostileTexts: [String] = [
        "", " ", "3277-5445-9830", "327754459830", "３２７７－５４４５－９８３０", "1234-5678-9012", "0", "-1",
        "99999999999999999999999999", "1e400", "NaN", "-0", "%00", "%FF%FE", "..", "../../etc/passwd", "\u{0}",
        "a\u{7}b", "\u{85}", "\u{2028}", "\u{FEFF}", "<script>alert(1)</script>", "'; DROP TABLE watches; --",
        String(repeating: "9", count: 5_000), String(repeating: "あ", count: 300),
        "e" + String(repeating: "\u{301}", count: 2_000), "🇯🇵🇯🇵", "\\", "\"", "{}", "[]", "null", "true",
        "http://93.184.215.14:70000/", "http://[::7f00:1]/h", "http://127.0.0.1:0/", "https://example.com:99999999999999999999/",
        "javascript:alert(1)", "http://user:pw@1.1.1.1/", "http://[64:ff9b::7f00:1]/", "ftp://1.1.1.1/",
    ]

    /// JSON of any shape: nested, huge and odd numbers, strings with escapes and lone surrogates.
    static func randomJSON(_ generator: inout Generator, depth: Int = 0) -> String {
        switch Int.random(in: 0..<(depth > 4 ? 5 : 8), using: &generator) {
        case 0: return "null"
        case 1: return Bool.random(using: &generator) ? "true" : "false"
        case 2:
            return ["0", "-0", "1e308", "-1e308", "1e-400", "123456789012345678901234567890", "3.5", "-7", "1E400"]
                .randomElement(using: &generator)!
        case 3, 4:
            let text = hostileTexts.randomElement(using: &generator)!
            return Bool.random(using: &generator) ? jsonString(text) : #""\ud800\u0000\n""#
        case 5:
            let count = Int.random(in: 0..<4, using: &generator)
            return "[" + (0..<count).map { _ in randomJSON(&generator, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = ["number", "label", "webhook_url", "numbers", "extra", "", "Number"]
            let count = Int.random(in: 0..<4, using: &generator)
            return "{"
                + (0..<count).map { _ in
                    jsonString(keys.randomElement(using: &generator)!) + ":" + randomJSON(&generator, depth: depth + 1)
                }.joined(separator: ",") + "}"
        }
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The documented statuses of each route, read from the server's own OpenAPI document.
    struct Documented {
        let routes: [(segments: [String], responses: [String: Set<String>])]

        init(_ document: Data) throws {
            let root = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
            let paths = try #require(root["paths"] as? [String: [String: Any]])
            routes = paths.map { path, operations in
                var responses: [String: Set<String>] = [:]
                for (method, operation) in operations {
                    guard let operation = operation as? [String: Any],
                        let answers = operation["responses"] as? [String: Any]
                    else { continue }
                    responses[method.uppercased()] = Set(answers.keys)
                }
                return (path.split(separator: "/").map(String.init), responses)
            }
            // A literal segment wins over a parameter (/v1/shipments/query before /v1/shipments/{number}).
            .sorted { $0.segments.filter { $0.hasPrefix("{") }.count < $1.segments.filter { $0.hasPrefix("{") }.count }
        }

        /// The statuses allowed for a request, or nil when no documented path matches it.
        func statuses(method: String, path: String) -> Set<String>? {
            let segments = path.split(separator: "/").map(String.init)
            for route in routes where route.segments.count == segments.count {
                let matches = zip(route.segments, segments).allSatisfy { pattern, segment in
                    pattern.hasPrefix("{") || pattern == segment
                }
                guard matches else { continue }
                // HEAD is answered as GET; a method the path lacks is 405.
                return route.responses[method == "HEAD" ? "GET" : method] ?? ["405"]
            }
            return nil
        }
    }

    static let templates = [
        "/v1/shipments/{}", "/v1/shipments", "/v1/shipments/query", "/v1/watches", "/v1/watches/{}",
        "/v1/watches/{}/changes", "/v1/watches/{}/deliveries", "/v1/watches/{}/refresh", "/v1/calendar.ics",
        "/v1/tneko", "/healthz", "/readyz", "/metrics", "/openapi.json", "/v2/{}", "/{}",
    ]
    static let methods = ["GET", "POST", "DELETE", "HEAD", "PUT", "PATCH", "OPTIONS", "TRACE", "get", "G\u{0}T"]
    static let queryNames = ["numbers", "limit", "cursor", "status", "refresh", "token", "lang", "", "x"]
    static let headerNames = [
        "authorization", "content-type", "if-none-match", "accept-encoding", "x-request-id", "origin",
        "access-control-request-method", "accept-language", "cookie",
    ]

    static func request(_ generator: inout Generator) -> HTTPRequest {
        let template = templates.randomElement(using: &generator)!
        var path = template
        while let range = path.range(of: "{}") {
            path.replaceSubrange(range, with: percentEncoded(hostileTexts.randomElement(using: &generator)!))
        }
        var query: [String] = []
        for _ in 0..<Int.random(in: 0..<4, using: &generator) {
            let name = queryNames.randomElement(using: &generator)!
            query.append(name + "=" + percentEncoded(hostileTexts.randomElement(using: &generator)!))
        }
        var headers: [String: String] = [:]
        for _ in 0..<Int.random(in: 0..<4, using: &generator) {
            let value = (["Bearer kn_x", "gzip;q=nan", "gzip;q=1e400", "*", "W/\"x\", \"y\"", "application/json", "text/plain"]
                + hostileTexts).randomElement(using: &generator)!
            headers[headerNames.randomElement(using: &generator)!] = value
        }
        let body: String
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: body = ""
        case 1: body = hostileTexts.randomElement(using: &generator)!
        default: body = randomJSON(&generator)
        }
        return HTTPRequest(
            method: methods.randomElement(using: &generator)!, target: path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")),
            headers: headers, body: Data(body.utf8))
    }

    static func check(_ response: HTTPResponse, for request: HTTPRequest, documented: Documented, seed: UInt64) {
        var allowed = documented.statuses(method: request.method, path: request.path) ?? ["404", "405"]
        // Answers of the middleware in front of every route (README, "The REST server"): OPTIONS is 204 with
        // Allow (or a CORS preflight), and a GET or HEAD whose If-None-Match matches is 304.
        if request.method == "OPTIONS" { allowed.insert("204") }
        if request.method == "GET" || request.method == "HEAD", request.headers["if-none-match"] != nil {
            allowed.insert("304")
        }
        let status = String(response.status)
        #expect(
            allowed.contains(status) || allowed.contains("default"),
            "seed \(seed): \(request.method) \(request.path) answered \(status), documented \(allowed.sorted())")
        guard response.status >= 400, request.method != "HEAD" else { return }
        #expect(
            response.header("Content-Type") == "application/problem+json",
            "seed \(seed): \(request.method) \(request.path) answered \(status) without a problem document")
        let problem = try? JSONDecoder().decode(ProblemDetails.self, from: response.body)
        #expect(problem?.status == response.status, "seed \(seed): \(request.method) \(request.path)")
    }

    @Test("3,000 generated requests at every route: documented statuses, problem documents, no trap")
    func generated() async throws {
        let harness = await Harness()
        let documented = try Documented(await harness.get("/openapi.json").body)
        for seed in UInt64(1)...3_000 {
            var generator = Generator(state: seed)
            let request = Self.request(&generator)
            let response = await harness.api.respond(to: request)
            Self.check(response, for: request, documented: documented, seed: seed)
        }
    }

    @Test("2,000 random JSON bodies at the watch routes: documented statuses, problem documents, no trap")
    func watchBodies() async throws {
        let harness = await Harness()
        let documented = try Documented(await harness.get("/openapi.json").body)
        let number = "3277-5445-9830"
        // Every hostile text as the label and as the webhook URL, once each, besides the random ones.
        for (index, text) in Self.hostileTexts.enumerated() {
            for body in [
                #"{"number": "\#(number)", "webhook_url": \#(Self.jsonString(text))}"#,
                #"{"number": "\#(number)", "label": \#(Self.jsonString(text))}"#,
                #"{"number": \#(Self.jsonString(text))}"#,
            ] {
                let request = HTTPRequest(method: "POST", target: "/v1/watches", body: Data(body.utf8))
                Self.check(
                    await harness.api.respond(to: request), for: request, documented: documented, seed: UInt64(index))
            }
        }
        for seed in UInt64(10_001)...12_000 {
            var generator = Generator(state: seed)
            var body = Self.randomJSON(&generator)
            if Bool.random(using: &generator) {
                // Mostly well-formed watch bodies with one field of a hostile type or value.
                let label = Self.randomJSON(&generator)
                let webhook = Bool.random(using: &generator) ? Self.randomJSON(&generator) : "null"
                body = #"{"number": "\#(number)", "label": \#(label), "webhook_url": \#(webhook)}"#
            }
            for (method, path) in [("POST", "/v1/watches"), ("POST", "/v1/shipments/query"), ("POST", "/v1/tneko")] {
                let request = HTTPRequest(
                    method: method, target: path, headers: ["content-type": "application/json"], body: Data(body.utf8))
                Self.check(await harness.api.respond(to: request), for: request, documented: documented, seed: seed)
            }
        }
    }
}
