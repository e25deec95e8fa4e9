import Foundation
import KuronekoTestSupport
import Testing

/// Numbers of all three carriers, mixed and unnamed, through `serve` against `kuroneko simulate` (which
/// serves every carrier at its real paths), and the carrier options refused when wrong.
@Suite("serve with three carriers", .serialized, .timeLimit(.minutes(10)))
struct CarrierServeTests {
    /// In the simulator a 12-digit number starting with 8 is Sagawa's, with 9 Japan Post's; 10 digits are
    /// Sagawa's; international numbers Japan Post's.
    static let mixed = ["3277-5445-9830", "812345678900", "912345678904", "1234567890", "EN418273650JP"]

    private static func servers() async throws -> (simulator: ServerProcess, server: ServerProcess) {
        let simulator = try await ServerProcess(["simulate", "--start", "2026-11-30T12:00:00+09:00", "--speed", "0"])
        let origin = simulator.baseURL
        let server = try await ServerProcess([
            "serve", "--endpoint", "yamato=\(origin)/cgi-bin/tneko,sagawa=\(origin)", "--endpoint",
            "japanpost=\(origin)", "--min-interval", "0", "--db",
            FileManager.default.temporaryDirectory.appendingPathComponent("carriers-\(UUID().uuidString).sqlite").path,
        ])
        return (simulator, server)
    }

    @Test("mixed numbers in one query: each answered by its own carrier, each carrier asked its own way")
    func mixedQuery() async throws {
        let (simulator, server) = try await Self.servers()
        defer {
            server.terminate()
            simulator.terminate()
        }
        let answer = try await HTTPClient.send(
            "GET", server.baseURL + "/v1/shipments?numbers=" + Self.mixed.joined(separator: ","))
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let shipments = try JSON(data: answer.body)["shipments"]?.elements ?? []
        #expect(
            shipments.compactMap { $0["carrier"] }
                == ["yamato", "sagawa", "japanpost", "sagawa", "japanpost"].map(JSON.string))
        let stats = try JSON(data: try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").body)
        // Yamato: one POST of the three 12-digit numbers. Sagawa: its two, and the Japan Post number Yamato did
        // not know. Japan Post: each one's own page, after one search of the two when they came together.
        #expect(stats["posts"] == .number(1))
        #expect(stats["numbers"] == .number(3))
        #expect(stats["carriers"]?["sagawa"]?["numbers"] == .number(3))
        let japanPost = stats["carriers"]?["japanpost"]?["requests"]
        #expect(japanPost == .number(2) || japanPost == .number(3), "\(String(describing: japanPost))")
        // Each carrier under its own label.
        let metrics = String(
            decoding: try await HTTPClient.send("GET", server.baseURL + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"kuroneko_upstream_requests_total{carrier="yamato"} 1"#))
        // Every HTTP request counted, as the simulator counts them.
        #expect(metrics.contains(#"kuroneko_upstream_requests_total{carrier="japanpost"} "# + "\(japanPost?.int ?? 0)"))
        #expect(metrics.contains(#"kuroneko_upstream_circuit_state{carrier="sagawa"} 0"#))
    }

    @Test("?carrier= wins, a wrong one or a number of another form is a 400, and a watch keeps its carrier")
    func explicitCarrier() async throws {
        let (simulator, server) = try await Self.servers()
        defer {
            server.terminate()
            simulator.terminate()
        }
        let asked = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/327754459830?carrier=japanpost")
        #expect(asked.status == 200)
        #expect(try JSON(data: asked.body)["status"]?["code"] == .string("not_found"))
        for bad in ["fedex", "%00", String(repeating: "x", count: 5_000)] {
            let refused = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/327754459830?carrier=\(bad)")
            #expect(refused.status == 400)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("use yamato, sagawa, japanpost, fukuyama or seino"))
        }
        let wrongForm = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/EN418273650JP?carrier=sagawa")
        #expect(wrongForm.status == 400)
        #expect(String(decoding: wrongForm.body, as: UTF8.self).contains("is not a Sagawa Express number"))
        let added = try await HTTPClient.send(
            "POST", server.baseURL + "/v1/watches", body: #"{"number": "812345678900", "carrier": "sagawa"}"#)
        #expect(added.status == 201)
        #expect(try JSON(data: added.body)["carrier"] == .string("sagawa"))
        let elsewhere = try await HTTPClient.send(
            "POST", server.baseURL + "/v1/watches", body: #"{"number": "812345678900", "carrier": "japanpost"}"#)
        #expect(elsewhere.status == 409)
        let unknown = try await HTTPClient.send(
            "POST", server.baseURL + "/v1/watches", body: #"{"number": "812345678900", "carrier": 7}"#)
        #expect(unknown.status == 400)
    }

    @Test("track and parse: numbers of every carrier, unnamed; --carrier refuses a number of another form")
    func commandLine() async throws {
        let simulator = try await ServerProcess(["simulate", "--start", "2026-11-30T12:00:00+09:00", "--speed", "0"])
        defer { simulator.terminate() }
        let origin = simulator.baseURL
        let endpoints = ["--endpoint", "yamato=\(origin)/cgi-bin/tneko,sagawa=\(origin),japanpost=\(origin)"]
        let tracked = try await KuronekoBinary.run(["track", "--jsonl"] + endpoints + Self.mixed)
        #expect(tracked.status == 0, "\(tracked.standardError)")
        let carriers = try tracked.standardOutput.split(separator: "\n").map {
            try JSON(data: Data($0.utf8))["carrier"]
        }
        #expect(carriers == ["yamato", "sagawa", "japanpost", "sagawa", "japanpost"].map(JSON.string))
        let refused = try await KuronekoBinary.run(["track", "--carrier", "yamato"] + endpoints + ["1234567890"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("\"1234567890\" is not a Yamato Transport number"))
        let badEndpoint = try await KuronekoBinary.run(["track", "--endpoint", "dhl=http://127.0.0.1:1", "3277-5445-9830"])
        #expect(badEndpoint.status == 2)
        #expect(badEndpoint.standardError.contains("\"dhl\" is not a carrier; use yamato, sagawa, japanpost, fukuyama or seino"))
        let page = Fixtures.packageDirectory.appendingPathComponent(
            "Tests/Fixtures/sagawa/current/single-delivered.html")
        let parsed = try await KuronekoBinary.run(["parse", "--json", page.path, "--now", "2026-08-23T10:00:00+09:00"])
        #expect(parsed.status == 0, "\(parsed.standardError)")
        #expect(try JSON(data: Data(parsed.standardOutput.utf8)).elements.first?["carrier"] == .string("sagawa"))
        let asYamato = try await KuronekoBinary.run(["parse", "--carrier", "yamato", page.path])
        #expect(asYamato.status == 1)
        #expect(asYamato.standardError.contains("parcel block"))
    }
}
