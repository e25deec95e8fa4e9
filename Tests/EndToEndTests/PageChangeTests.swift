import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

/// A carrier changes its page: `kuroneko serve` in front of `kuroneko simulate`, whose pages are switched to
/// a changed layout and back, with an operator's ntfy channel on a local receiver.
@Suite("a carrier's page changes", .serialized, .timeLimit(.minutes(10)))
struct PageChangeTests {
    private static func json(_ response: HTTPResponse) throws -> JSON { try JSON(data: response.body) }

    @Test(
        "through the simulator's changed page: page_not_understood, watches keep their answer, counted, named by /readyz, the operator told once each way, the kept page masked"
    )
    func changedPage() async throws {
        let receiver = try FakeUpstream(concurrent: true) { _ in .init(status: 200, contentType: "text/plain", body: Data()) }
        defer { receiver.stop() }
        let simulator = try await ServerProcess(["simulate", "--port", "0"])
        defer { simulator.terminate() }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString).sqlite").path
        let server = try await ServerProcess([
            "serve", "--port", "0", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--min-interval", "0",
            "--db", database, "--allow-private-webhooks",
        ])
        defer { server.terminate() }
        let api = SocketClient(port: server.port)
        let admin = SocketClient(port: simulator.port)
        let added = try await api.send(
            "POST", "/v1/channels", headers: ["Content-Type": "application/json"],
            body: Data(
                #"{"kind": "ntfy", "url": "http://127.0.0.1:\#(receiver.port)/ops", "kinds": ["page_changed"], "lang": "en"}"#
                    .utf8))
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")

        let numbers = ValidNumbers.numbers(6, from: 61_000_000_000)
        let candidates = ValidNumbers.numbers(10, from: 65_000_000_000)
        for number in candidates {
            let answer = try await api.send(
                "POST", "/v1/watches", headers: ["Content-Type": "application/json"],
                body: Data(#"{"number": "\#(number.digits)"}"#.utf8))
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
        }
        // Each watch's first check (queued when it was added) has its answer before the page changes; the
        // parcels still on their way are the ones followed on.
        var watched: [TrackingNumber] = []
        #expect(
            try await eventually {
                watched = []
                for number in candidates {
                    let watch = try Self.json(try await api.get("/v1/watches/\(number.digits)"))
                    guard watch["shipment"] != .null else { return false }
                    if watch["active"] == .bool(true) { watched.append(number) }
                }
                return true
            })
        watched = Array(watched.prefix(3))
        try #require(!watched.isEmpty, "some of the simulator's parcels are on their way")
        // The carrier redesigns its page.
        let changed = try await admin.send(
            "PUT", "/admin/faults", headers: ["Content-Type": "application/json"],
            body: Data(#"{"changed_layout": true}"#.utf8))
        #expect(changed.status == 200)
        for number in numbers[..<6] {
            let answer = try await api.get("/v1/shipments/\(number.digits)")
            #expect(answer.status == 502)
            let problem = try Self.json(answer)
            #expect(problem["reason"]?.string == "page_not_understood", "\(problem)")
            #expect(problem["detail"]?.string?.hasPrefix("Yamato Transport's page could not be read") == true, "\(problem)")
        }
        for number in watched {
            _ = try await api.send("POST", "/v1/watches/\(number.digits)/refresh", headers: [:], body: Data())
        }
        // Each watch keeps the answer it had, and says the page was not read.
        #expect(
            try await eventually {
                var all = true
                for number in watched {
                    let watch = try Self.json(try await api.get("/v1/watches/\(number.digits)"))
                    all = all && watch["page_not_understood_since"] != .null && watch["shipment"] != .null
                }
                return all
            })
        let metrics = String(decoding: try await api.get("/metrics").body, as: UTF8.self)
        let refused = try #require(
            metrics.firstMatch(of: /kuroneko_upstream_refused_pages_total\{carrier="yamato",reason="unrecognized_layout"\} (\d+)/),
            "\(metrics.prefix(2_000))")
        #expect(Int(refused.1)! >= 6)
        #expect(metrics.contains(#"kuroneko_carrier_page_changed{carrier="yamato"} 1"#))
        let ready = try await api.get("/readyz")
        #expect(ready.status == 200)
        let degraded = try Self.json(ready)["degraded"]?.elements ?? []
        #expect(degraded.count == 1 && degraded.first?["carrier"]?.string == "yamato", "\(String(decoding: ready.body, as: UTF8.self))")

        // The operator is told once, however many pages are refused.
        #expect(await receiver.waitForAnswers(timeout: .seconds(120)) { $0.count >= 1 })
        let told = receiver.requests
        #expect(told.count == 1, "\(told.map { String(decoding: $0.body, as: UTF8.self) })")
        #expect(String(decoding: told[0].body, as: UTF8.self).contains("Yamato Transport's tracking page seems to have changed"))
        #expect(told[0].path == "/ops")

        // The kept pages, masked: none of the numbers, the sender's name or telephone; the markup as served.
        let listed = try await KuronekoBinary.runAside(["pages", "list", "--db", database])
        #expect(listed.status == 0, "\(listed.standardError)")
        let ids = listed.standardOutput.split(separator: "\n").compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
        #expect(ids.count == 3, "at most 3 pages of a carrier an hour: \(listed.standardOutput)")
        let first = try #require(ids.min())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("page-\(UUID().uuidString).html").path
        let exported = try await KuronekoBinary.runAside(["pages", "export", String(first), file, "--db", database])
        #expect(exported.status == 0, "\(exported.standardError)")
        let kept = try String(contentsOfFile: file, encoding: .utf8)
        for number in numbers + candidates {
            #expect(!kept.contains(number.digits) && !kept.contains(number.formatted), "\(number) is in the kept page")
        }
        #expect(!kept.contains("黒猫") && !kept.contains("花子") && !kept.contains("03-5555-0123"))
        #expect(kept.contains("○○ ○○ 様") && kept.contains("00-0000-0000"), "masked in the same shape")
        let served = try await admin.send(
            "POST", "/cgi-bin/tneko", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("number00=1&number01=\(numbers[0].digits)".utf8))
        let original = String(decoding: served.body, as: UTF8.self)
        #expect(Self.markup(of: kept) == Self.markup(of: original), "only text and digits differ")
        #expect(original.contains("黒猫 花子"))

        // The page is restored: lookups are read again, the watches' state clears, and the operator is told once.
        _ = try await admin.send(
            "PUT", "/admin/faults", headers: ["Content-Type": "application/json"],
            body: Data(#"{"changed_layout": false}"#.utf8))
        for number in watched {
            let answer = try await api.send("POST", "/v1/watches/\(number.digits)/refresh", headers: [:], body: Data())
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(try Self.json(answer)["page_not_understood_since"] == .null)
        }
        // Three pages read in a row mean the carrier's pages are read again, however few watches there are.
        for number in numbers[..<3] { #expect(try await api.get("/v1/shipments/\(number.digits)").status == 200) }
        #expect(await receiver.waitForAnswers(timeout: .seconds(120)) { $0.count >= 2 })
        #expect(String(decoding: receiver.requests[1].body, as: UTF8.self).contains("Kuroneko reads Yamato Transport's tracking pages again"))
        #expect(try await eventually {
            String(decoding: try await api.get("/metrics").body, as: UTF8.self)
                .contains(#"kuroneko_carrier_page_changed{carrier="yamato"} 0"#)
        })
        #expect(try Self.json(try await api.get("/readyz"))["degraded"] == nil)
        #expect(receiver.requests.count == 2)
    }

    @Test("a canary whose page is refused marks its carrier changed at once, on a server nobody asks anything")
    func canary() async throws {
        let simulator = try await ServerProcess(["simulate", "--port", "0", "--changed-layout"])
        defer { simulator.terminate() }
        let canary = ValidNumbers.numbers(1, from: 66_000_000_000)[0]
        let server = try await ServerProcess([
            "serve", "--port", "0", "--endpoint", simulator.baseURL + "/cgi-bin/tneko", "--min-interval", "0",
            "--db", FileManager.default.temporaryDirectory.appendingPathComponent("canary-\(UUID().uuidString).sqlite").path,
            "--canary", "yamato=\(canary.formatted)",
        ])
        defer { server.terminate() }
        let api = SocketClient(port: server.port)
        #expect(
            try await eventually {
                let degraded = try Self.json(try await api.get("/readyz"))["degraded"]?.elements ?? []
                return degraded.first?["detail"]?.string?.hasPrefix("the canary's page was not understood") == true
            })
        #expect(await server.waitForLog("carrier's page not understood carrier=yamato reason=the canary's page was not understood"))
        #expect(!server.logSoFar.contains(canary.digits), "the canary's number is not logged")
    }

    /// The tags of a page with every digit made 0 and the text between them dropped.
    /// The page's tags, digits as 0, outside scripts (whose content is masked whole, markup in strings too).
    static func markup(of page: String) -> [String] {
        var tags: [String] = []
        let outsideScripts = page.replacingOccurrences(
            of: "(?s)(<script[^>]*>).*?(</script>)", with: "$1$2", options: .regularExpression
        )
        // A link's fragment is masked in its shape, as a query's values are.
        .replacingOccurrences(of: "href=\"#[^\"]*\"", with: "href=\"#\"", options: .regularExpression)
        var rest = Substring(outsideScripts)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            tags.append(String(rest[open...close].map { $0.isASCII && $0.isNumber ? "0" : $0 }))
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }
}
