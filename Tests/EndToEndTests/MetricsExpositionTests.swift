import Foundation
import KuronekoProcess
import KuronekoTestSupport
import Testing

/// `/metrics` as Prometheus reads it: written by swift-prometheus from swift-metrics' handles, with the same
/// families (names and types) the hand-written exposition had, and valid for `promtool check metrics`.
@Suite("the /metrics exposition", .serialized, .timeLimit(.minutes(10)))
struct MetricsExpositionTests {
    /// `name type` of each family before the change (Tests/Fixtures/metrics/families.txt).
    static func familiesBefore() throws -> Set<String> {
        let file = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/metrics/families.txt")
        return Set(try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init))
    }

    @Test("serve --demo after a lookup: the same families as before, each with HELP; promtool finds nothing wrong")
    func sameFamilies() async throws {
        let server = try await ServerProcess(["serve", "--demo"])
        defer { server.terminate() }
        _ = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/327754459830")
        let answer = try await HTTPClient.send("GET", server.baseURL + "/metrics")
        #expect(answer.status == 200)
        let text = String(decoding: answer.body, as: UTF8.self)
        let lines = text.split(separator: "\n")
        let families = Set(lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.dropFirst(7).split(separator: " ").joined(separator: " ") })
        // A family with no sample yet is not written now (the old text wrote its HELP and TYPE alone): no page
        // was refused in this run; a refused page's counter is checked in PageChangeTests.
        let before = try Self.familiesBefore().subtracting(["kuroneko_upstream_refused_pages_total counter"])
        #expect(families == before, "new: \(families.subtracting(before).sorted()); gone: \(before.subtracting(families).sorted())")
        let helped = Set(lines.filter { $0.hasPrefix("# HELP ") }.compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) })
        #expect(Set(families.map { String($0.split(separator: " ")[0]) }) == helped)
        // The bounds are as before.
        #expect(text.contains(#"kuroneko_upstream_request_duration_seconds_bucket{carrier="yamato",le="2.5"}"#))
        #expect(text.contains(#"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="0.005"}"#))
        #expect(text.contains(#"kuroneko_cache_lookups_total{result="miss"} 1"#))
        guard let promtool = Self.promtool() else {
            #expect(ProcessInfo.processInfo.environment["KURONEKO_REQUIRE_PROMTOOL"] == nil, "promtool is required here")
            print("MetricsExpositionTests: promtool is not installed (Debian's prometheus); skipping its check")
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try answer.body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try await onOwnThread { Result { try Self.run(promtool, ["check", "metrics"], input: file.path) } }.get()
        #expect(check.status == 0, "promtool: \(check.output)")
    }

    static func promtool() -> String? {
        ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool ARGUMENTS < input`; its exit status and what it wrote.
    static func run(_ tool: String, _ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let inputHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let pipe = Pipe()
        let child = try ChildProcess(
            tool, arguments, environment: [:], input: inputHandle.fileDescriptor,
            output: pipe.fileHandleForWriting.fileDescriptor, error: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        return (child.wait(), String(decoding: output, as: UTF8.self))
    }
}
