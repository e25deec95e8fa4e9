import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

/// The built `kuroneko` binary, run as a user would, against a fake upstream on 127.0.0.1.
@Suite("kuroneko command line", .serialized)
struct CommandLineTests {
    @Test("parse prints exactly each fixture's expected shipments", arguments: Fixtures.currentCases)
    func parseFixture(page: Fixtures.Case) async throws {
        let now = ISO8601DateFormatter().string(from: page.now)
        let outcome = try await KuronekoBinary.run(["parse", page.url.path, "--now", now, "--json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.isEmpty)
        let printed = try JSON(data: Data(outcome.standardOutput.utf8))
        #expect(printed.without(Fixtures.keysAddedSinceFixtures) == page.shipments)
        for shipment in printed.elements {
            #expect(shipment["status"]?["label_en"] != nil)
        }
    }

    @Test("--version, --help and each command's --help")
    func help() async throws {
        let version = try await KuronekoBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == "kuroneko \(KuronekoVersion.version)\n")
        for arguments in [["--help"], ["track", "--help"], ["parse", "--help"], ["help", "track"]] {
            let outcome = try await KuronekoBinary.run(arguments)
            #expect(outcome.status == 0, "\(arguments)")
            #expect(outcome.standardOutput.contains("USAGE: kuroneko"), "\(arguments)")
        }
    }

    @Test(
        "usage errors exit 2 with one line naming the bad input",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["track"], "no tracking number given"),
            (["track", "--colour", "327754459830"], "track: Unknown option '--colour'"),
            (["track", "--lang", "fr", "327754459830"], "track: The value 'fr' is invalid for '--lang <LANG>'. Please provide one of 'ja' and 'en'."),
            (["track", "--endpoint", "ftp://x", "327754459830"], "--endpoint \"ftp://x\" is not an http(s) URL"),
            (["track", "--json", "--jsonl", "327754459830"], "--json and --jsonl exclude each other"),
            (["parse", "/nonexistent/page.html"], "\"/nonexistent/page.html\" does not exist"),
            (["parse", "x.html", "--now", "tomorrow"], "--now \"tomorrow\" is not an ISO 8601 time"),
            (["track", "--timeout", "0", "327754459830"], "track: The value '0' is invalid for '--timeout <SECONDS>': expected a number from 0.1 to 600"),
            (["serve", "--port", "eighty"], "serve: The value 'eighty' is invalid for '--port <PORT>': expected a number from 0 to 65,535"),
            (["serve", "--port", "70000"], "serve: The value '70000' is invalid for '--port <PORT>': expected a number from 0 to 65,535"),
            (["serve", "--endpoint", "tneko"], "serve: --endpoint \"tneko\" is not an http(s) URL"),
            (["simulate", "--error-rate", "2"], "simulate: The value '2' is invalid for '--error-rate <SHARE>': expected a number from 0 to 1"),
            (["serve", "--canary", "4471"], "serve: --canary \"4471\" is not CARRIER=NUMBER; expected e.g. yamato="),
            (["serve", "--canary", "fedex=327754459830"], "serve: --canary \"fedex=327754459830\": "),
            (["serve", "--canary", "yamato=12"], "serve: --canary \"yamato=12\": "),
            (
                ["serve", "--canary", "yamato=327754459830,yamato=327754459830"],
                "serve: --canary names yamato twice; give each carrier one canary"
            ),
            (["pages", "show", "x"], "pages: \"x\" is not a page's id; expected a number from kuroneko pages list"),
            (["pages", "frob"], "pages: unknown action 'frob'"),
            (
                ["list", "--db", "mysql://shop:s3cret@db/kuroneko"],
                "list: the watch list mysql://shop:***@db/kuroneko cannot be opened: --db \"mysql://…\" is not a "
                    + "database this can use; give a postgres:// URL or the path of an SQLite file"
            ),
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let outcome = try await KuronekoBinary.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)")
        #expect(outcome.standardError.split(separator: "\n").count == 1)
    }

    @Test("an unknown --charset is a usage error naming it")
    func unknownCharset() async throws {
        let page = try #require(Fixtures.currentCases.first)
        let outcome = try await KuronekoBinary.run(["parse", page.url.path, "--charset", "klingon"])
        #expect(outcome.status == 2)
        #expect(
            outcome.standardError
                == "kuroneko: parse: --charset \"klingon\" is not a charset libxml2 knows; expected e.g. UTF-8 or "
                + "Shift_JIS\n")
    }

    @Test("invalid numbers are refused before anything is sent")
    func invalidNumbersSendNothing() async throws {
        let upstream = try FakeUpstream { _ in .init(status: 200, body: Data()) }
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.run([
            "track", "--endpoint", upstream.endpoint, "3277-5445-9830", "1234-5678-9015", "1234-5678-9",
        ])
        #expect(outcome.status == 2)
        #expect(
            outcome.standardError
                == "kuroneko: track: 2 invalid tracking numbers: \"1234-5678-9015\" check digit is 5, expected 3; "
                + "\"1234-5678-9\" has 9 digits; a tracking number has 12 digits (Yamato Transport, Sagawa Express, Japan Post), 10 (Sagawa Express, "
                + "Seino Transportation), 11 (Japan Post, Fukuyama Transporting), 13 (Japan Post), or is international like "
                + "EN123456785JP; nothing was sent\n")
        #expect(upstream.requests.isEmpty)
    }

    @Test("track posts ten numbers per request and prints every shipment in the order asked")
    func trackAgainstFakeUpstream() async throws {
        let upstream = try FakeUpstream(handler: Self.fixturePages)
        defer { upstream.stop() }
        let multi = try #require(Fixtures.currentCases.first { $0.name == "multi-10" })
        let single = try #require(Fixtures.currentCases.first { $0.name == "single-delivered" })
        // The fake answers only what a fixture page holds: the ten of multi-10 in one POST, then the one.
        let numbers = Self.numbers(of: multi) + Self.numbers(of: single)
        let typed = numbers.map { try! TrackingNumber(parsing: $0).formatted }

        let outcome = try await KuronekoBinary.run(["track", "--json", "--endpoint", upstream.endpoint] + typed)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let printed = try JSON(data: Data(outcome.standardOutput.utf8))
        #expect(printed.elements.compactMap { $0["tracking_number"] } == numbers.map(JSON.string))
        #expect(printed.elements[9]["status"]?["label"] == .string("発送済み"))
        #expect(printed.elements[10]["status"]?["label"] == .string("配達完了"))

        let posts = upstream.requests
        #expect(posts.map(\.method) == ["POST", "POST"])
        #expect(posts.allSatisfy { $0.path == "/cgi-bin/tneko" })
        #expect(posts.map { FakeTrackingPage.numbers(inFormBody: $0.body).count }.sorted() == [1, 10])
        #expect(posts.allSatisfy { $0.headers["content-type"] == "application/x-www-form-urlencoded" })
        #expect(posts.allSatisfy { $0.headers["user-agent"]?.hasPrefix("Kuroneko/") == true })
    }

    @Test("the table is plain text off a terminal, and --lang en shows English labels")
    func table() async throws {
        let upstream = try FakeUpstream(handler: Self.fixturePages)
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.run(
            ["track", "--lang", "en", "--endpoint", upstream.endpoint, "-"],
            input: "3277-5445-9830\n")
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(!outcome.standardOutput.contains("\u{1B}["))
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("NUMBER") == true)
        #expect(lines.last?.contains("3277-5445-9830  Delivered") == true)
        #expect(lines.last?.contains("ＥＣ笹塚センター") == true)
    }

    /// util-linux `script` runs the tool on a pseudo-terminal, as a person would.
    static let scriptAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    @Test(
        "status is coloured on a terminal, and not with NO_COLOR set",
        .enabled(if: scriptAvailable, "/usr/bin/script (util-linux) is missing: no pseudo-terminal to test on"))
    func colourOnTerminal() async throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-delivered" })
        let command = "'\(KuronekoBinary.url.path)' parse '\(page.url.path)' --now 2026-10-30T12:00:00+09:00"
        let onTerminal = try await KuronekoBinary.run(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"),
            environment: ["NO_COLOR": ""])
        #expect(onTerminal.standardOutput.contains("\u{1B}[32m配達完了\u{1B}[0m"))
        let noColor = try await KuronekoBinary.run(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"),
            environment: ["NO_COLOR": "1"])
        #expect(noColor.standardOutput.contains("配達完了"))
        #expect(!noColor.standardOutput.contains("\u{1B}["))
    }

    @Test("--jsonl prints one shipment per line")
    func jsonLines() async throws {
        let upstream = try FakeUpstream(handler: Self.fixturePages)
        defer { upstream.stop() }
        let multi = try #require(Fixtures.currentCases.first { $0.name == "multi-10" })
        let outcome = try await KuronekoBinary.run(
            ["track", "--jsonl", "--endpoint", upstream.endpoint, "-"],
            input: Self.numbers(of: multi).joined(separator: ","))
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(
            try lines.map { try JSON(data: Data($0.utf8))["tracking_number"] }
                == Self.numbers(of: multi).map(JSON.string))
    }

    @Test("an upstream that keeps failing exits 1 with one line naming the number, after the retries")
    func upstreamFailure() async throws {
        let upstream = try FakeUpstream { _ in .init(status: 503, body: Data("busy".utf8)) }
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.run(["track", "--endpoint", upstream.endpoint, "327754459830"])
        #expect(outcome.status == 1)
        #expect(
            outcome.standardError
                == "kuroneko: 3277-5445-9830: \(upstream.endpoint) answered HTTP 503 (after 3 attempts)\n")
        #expect(upstream.requests.count == 3)
    }

    @Test("a page in an unknown layout exits 1 and says so")
    func unknownLayout() async throws {
        let upstream = try FakeUpstream { _ in
            .init(status: 200, body: Data("<html><head><title>メンテナンス</title></head><body></body></html>".utf8))
        }
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.run(["track", "--endpoint", upstream.endpoint, "327754459830"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("unrecognised page layout"))
        #expect(outcome.standardError.contains("\"メンテナンス\""))
        #expect(upstream.requests.count == 1)
    }

    @Test(
        "a real 2009 page is refused by parse",
        .enabled(if: Fixtures.realAvailable, Comment(rawValue: Fixtures.realMissingReason)))
    func legacyPage() async throws {
        let page = Fixtures.realDirectory.appendingPathComponent("legacy-2009/list_count01.html")
        let outcome = try await KuronekoBinary.run(["parse", page.path])
        #expect(outcome.status == 1)
        #expect(
            outcome.standardError.contains(
                "the page is Yamato's older page (Shift_JIS tables and font tags, about 2009, replaced about "
                    + "September 2021), which Kuroneko does not read"), "\(outcome.standardError)")
    }

    @Test("parse given the text of a page copied from a browser says it is text and how to save the page")
    func textCopy() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("copied-\(UUID().uuidString).txt")
        try Data("荷物問い合わせ結果\n3277-5445-9830\n配達完了\n12月01日 14:05 荒川センター\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await KuronekoBinary.run(["parse", file.path])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("this is text, not the page's HTML"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("Save Page As"))
        #expect(!outcome.standardError.contains("truncated"))
        #expect(outcome.standardError.split(separator: "\n").count == 1)
    }

    /// Answers a POST with the fixture page whose parcels are exactly the numbers posted.
    @Sendable static func fixturePages(_ request: FakeUpstream.Request) -> FakeUpstream.Response {
        let asked = FakeTrackingPage.numbers(inFormBody: request.body).map(\.digits)
        guard let page = Fixtures.currentCases.first(where: { numbers(of: $0) == asked }), let html = try? page.html
        else {
            return .init(status: 404, body: Data("no fixture for \(asked)".utf8))
        }
        return .init(status: 200, body: html)
    }

    static func numbers(of page: Fixtures.Case) -> [String] {
        page.shipments.elements.compactMap {
            if case .string(let number)? = $0["tracking_number"] { return number }
            return nil
        }
    }
}
