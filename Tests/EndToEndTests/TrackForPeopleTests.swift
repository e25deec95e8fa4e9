import Foundation
import Kuroneko
import KuronekoTestSupport
import Synchronization
import Testing

/// `kuroneko track` as a person runs it: output as it arrives, progress on a terminal, partial failures,
/// numbers piped in, and the small conveniences of a command-line tool.
@Suite("kuroneko track for people", .serialized, .timeLimit(.minutes(10)))
struct TrackForPeopleTests {
    private static func page(for request: FakeUpstream.Request) -> FakeUpstream.Response {
        .init(status: 200, body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
    }

    @Test("the first answers are printed while later POSTs are still outstanding")
    func streams() async throws {
        let release = DispatchSemaphore(value: 0)
        let upstream = try FakeUpstream { request in
            // The first POST is answered at once; every later one waits until the test has seen output.
            let first = FakeTrackingPage.numbers(inFormBody: request.body).first
            if first != ValidNumbers.numbers(1)[0] { _ = release.wait(timeout: .now() + .seconds(300)) }
            return Self.page(for: request)
        }
        defer { upstream.stop() }
        let numbers = ValidNumbers.numbers(30)
        // A long request timeout: a held POST must wait for the test, however loaded the machine is.
        let tool = try RunningTool(
            ["track", "--jsonl", "--timeout", "300", "--endpoint", upstream.endpoint] + numbers.map(\.formatted))
        #expect(await tool.waitForLines(10), "the first POST's ten answers did not appear before the second POST ended")
        #expect(tool.lines.count == 10)
        for _ in 0..<10 { release.signal() }
        let outcome = await tool.finish()
        #expect(outcome.status == 0, "\(outcome.error)")
        let printed = try outcome.output.map { try JSON(data: Data($0.utf8))["tracking_number"] }
        #expect(printed == numbers.map { JSON.string($0.digits) })
    }

    @Test("a failed POST: its numbers are one line on stderr, grouped by cause; every other answer is printed; exit 1")
    func partialFailure() async throws {
        let numbers = ValidNumbers.numbers(25)
        let poisoned = numbers[12]
        let upstream = try FakeUpstream { request in
            FakeTrackingPage.numbers(inFormBody: request.body).contains(poisoned)
                ? .init(status: 500, body: Data("broken".utf8)) : Self.page(for: request)
        }
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.runAside(
            ["track", "--jsonl", "--endpoint", upstream.endpoint] + numbers.map(\.formatted))
        #expect(outcome.status == 1)
        let printed = try outcome.standardOutput.split(separator: "\n").map {
            try JSON(data: Data($0.utf8))["tracking_number"]
        }
        let answered = numbers.enumerated().filter { !(10..<20).contains($0.offset) }.map(\.element)
        #expect(printed == answered.map { JSON.string($0.digits) })
        let errors = outcome.standardError.split(separator: "\n").map(String.init)
        let first = numbers[10..<13].map(\.formatted).joined(separator: ", ")
        #expect(
            errors == [
                "kuroneko: \(upstream.endpoint) answered HTTP 500 (after 3 attempts): 10 numbers (\(first), and 7 more)"
            ])
    }

    @Test("numbers are read from piped standard input when none are given; blank lines and # comments ignored")
    func standardInput() async throws {
        let upstream = try FakeUpstream(handler: Self.page)
        defer { upstream.stop() }
        let numbers = ValidNumbers.numbers(3)
        let input = "# my parcels\n\(numbers[0].formatted)  # the shoes\n\n\(numbers[1].digits), \(numbers[2].digits)\n"
        let outcome = try await KuronekoBinary.run(["track", "--jsonl", "--endpoint", upstream.endpoint], input: input)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.split(separator: "\n").count == 3)
        let empty = try await KuronekoBinary.run(["track", "--endpoint", upstream.endpoint], input: "# nothing\n\n")
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("no tracking number given"))
    }

    @Test("--skip-invalid reports each invalid number and tracks the rest")
    func skipInvalid() async throws {
        let upstream = try FakeUpstream(handler: Self.page)
        defer { upstream.stop() }
        let valid = ValidNumbers.numbers(1)[0]
        let outcome = try await KuronekoBinary.run([
            "track", "--skip-invalid", "--jsonl", "--endpoint", upstream.endpoint, "1234-5678-9015", valid.formatted,
            "12",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.split(separator: "\n").count == 1)
        #expect(
            outcome.standardError
                == "kuroneko: \"1234-5678-9015\" check digit is 5, expected 3; skipped\n"
                + "kuroneko: \"12\" has 2 digits; a tracking number has 12 digits (Yamato Transport, Sagawa Express, Japan Post), 10 (Sagawa Express, "
                + "Seino Transportation), 11 (Japan Post, Fukuyama Transporting), 13 (Japan Post), or is international like "
                + "EN123456785JP; skipped\n")
        let none = try await KuronekoBinary.run(["track", "--skip-invalid", "--endpoint", upstream.endpoint, "12"])
        #expect(none.status == 2)
        #expect(none.standardError.contains("no valid number is left, nothing was sent"))
        #expect(upstream.requests.count == 1)
    }

    @Test("KURONEKO_ENDPOINT and KURONEKO_TIMEOUT are honoured; the flag wins; bad values are named")
    func environment() async throws {
        let upstream = try FakeUpstream(handler: Self.page)
        defer { upstream.stop() }
        let number = ValidNumbers.numbers(1)[0].formatted
        let viaVariable = try await KuronekoBinary.run(
            ["track", "--json", number], environment: ["KURONEKO_ENDPOINT": upstream.endpoint])
        #expect(viaVariable.status == 0, "\(viaVariable.standardError)")
        #expect(upstream.requests.count == 1)
        let flagWins = try await KuronekoBinary.run(
            ["track", "--json", "--endpoint", upstream.endpoint, number],
            environment: ["KURONEKO_ENDPOINT": "http://127.0.0.1:1/cgi-bin/tneko"])
        #expect(flagWins.status == 0, "\(flagWins.standardError)")
        let badTimeout = try await KuronekoBinary.run(["track", number], environment: ["KURONEKO_TIMEOUT": "soon"])
        #expect(badTimeout.status == 2)
        #expect(
            badTimeout.standardError == "kuroneko: track: KURONEKO_TIMEOUT \"soon\" is not a number from 0.1 to 600\n")
    }

    @Test(
        "-- ends the options; a mistyped command or option gets the closest one suggested",
        arguments: [
            (["trak", "1"], "unknown command 'trak'; did you mean 'track'?"),
            (["track", "--jsn", "1"], "track: Unknown option '--jsn'. Did you mean '--json'?"),
            (["track", "--", "--json"], "\"--json\" contains \"j\""),
            (["help", "sreve"], "unknown command 'sreve'; did you mean 'serve'?"),
            (["track", "--quiet=1", "1"], "track: The option '--quiet' does not take any value"),
            (["completion", "tcsh"], "'tcsh' is not a shell it knows"),
        ])
    func suggestions(arguments: [String], message: String) async throws {
        let outcome = try await KuronekoBinary.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains(message), "\(outcome.standardError)")
        #expect(outcome.standardError.split(separator: "\n").count == 1)
    }

    @Test("after --, an argument that looks like an option is a number")
    func doubleDash() async throws {
        let upstream = try FakeUpstream(handler: Self.page)
        defer { upstream.stop() }
        let outcome = try await KuronekoBinary.run(
            ["track", "--jsonl", "--endpoint", upstream.endpoint, "--", ValidNumbers.numbers(1)[0].formatted])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.split(separator: "\n").count == 1)
    }

    @Test(
        "progress on a terminal's standard error, cleared at the end; none with --quiet or when not a terminal",
        .enabled(if: CommandLineTests.scriptAvailable, "/usr/bin/script (util-linux) is missing: no pseudo-terminal"))
    func progress() async throws {
        let upstream = try FakeUpstream(handler: Self.page)
        defer { upstream.stop() }
        let numbers = ValidNumbers.numbers(12).map(\.formatted).joined(separator: " ")
        let command = "'\(KuronekoBinary.url.path)' track --endpoint \(upstream.endpoint) \(numbers) > /dev/null"
        let shown = try await KuronekoBinary.run(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(shown.status == 0)
        // Shown before any answer (whether the first POST has left by the first redraw depends on the machine).
        #expect(
            shown.standardOutput.contains("tracking: 0/12 answered · 0 requests sent")
                || shown.standardOutput.contains("tracking: 0/12 answered · 1 request sent"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains(" answered · 1 request sent"))
        #expect(shown.standardOutput.hasSuffix("\r\u{1B}[K"), "the progress line is cleared at the end")
        let quiet = try await KuronekoBinary.run(
            ["-qec", command.replacingOccurrences(of: " track ", with: " track --quiet "), "/dev/null"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(!quiet.standardOutput.contains("tracking:"))
        let piped = try await KuronekoBinary.run([
            "track", "--endpoint", upstream.endpoint, ValidNumbers.numbers(1)[0].formatted,
        ])
        #expect(piped.status == 0)
        #expect(piped.standardError.isEmpty)
    }

    @Test(
        "--no-color and TERM=dumb turn colour off on a terminal",
        .enabled(if: CommandLineTests.scriptAvailable, "/usr/bin/script (util-linux) is missing: no pseudo-terminal"))
    func noColor() async throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-delivered" })
        let command = "'\(KuronekoBinary.url.path)' parse '\(page.url.path)' --now 2026-10-30T12:00:00+09:00"
        let script = URL(fileURLWithPath: "/usr/bin/script")
        let flag = try await KuronekoBinary.run(
            ["-qec", command + " --no-color", "/dev/null"], executable: script, environment: ["NO_COLOR": ""])
        #expect(flag.standardOutput.contains("配達完了") && !flag.standardOutput.contains("\u{1B}["))
        let dumb = try await KuronekoBinary.run(
            ["-qec", command, "/dev/null"], executable: script, environment: ["NO_COLOR": "", "TERM": "dumb"])
        #expect(dumb.standardOutput.contains("配達完了") && !dumb.standardOutput.contains("\u{1B}["))
    }

    @Test("--format tneko prints the original app's model")
    func tnekoFormat() async throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-delivered" })
        let outcome = try await KuronekoBinary.run([
            "parse", page.url.path, "--now", "2026-10-30T12:00:00+09:00", "--format", "tneko",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let model = try JSONDecoder().decode(TnekoModel.self, from: Data(outcome.standardOutput.utf8))
        let digits = try #require(page.shipments.elements.first?["tracking_number"])
        #expect(model.deriveryList.count == 1)
        #expect(JSON.string(String(model.deriveryList[0].deliveryID)) == digits)
        #expect(model.deriveryList[0].statusList.last?.status == "配達完了")
    }
}
