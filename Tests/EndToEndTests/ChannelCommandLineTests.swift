import Foundation
import KuronekoTestSupport
import Testing

/// `kuroneko channels` and `notify-test` on the local file, against a local receiver standing in for ntfy.
@Suite("channels on the command line", .timeLimit(.minutes(10)))
struct ChannelCommandLineTests {
    @Test("add, list, notify-test (ntfy's headers and body), remove; bad input refused by name")
    func channels() async throws {
        let receiver = try FakeUpstream { _ in .init(status: 200, body: Data("{}".utf8)) }
        defer { receiver.stop() }
        let environment = [
            "KURONEKO_DB": FileManager.default.temporaryDirectory.appendingPathComponent(
                "ch-\(UUID().uuidString).sqlite"
            ).path
        ]
        let arguments = [
            "channels", "add", "--kind", "ntfy", "--url", "http://127.0.0.1:\(receiver.port)/parcels", "--lang", "en",
        ]
        // Refused as the server would refuse it at delivery, in the same words, naming the setting.
        let refusedAtAdd = try await KuronekoBinary.run(arguments, environment: environment)
        #expect(refusedAtAdd.status == 2)
        #expect(
            refusedAtAdd.standardError.contains("leads to a loopback address")
                && refusedAtAdd.standardError.contains("KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1"), "\(refusedAtAdd.standardError)")
        let added = try await KuronekoBinary.run(arguments + ["--allow-private"], environment: environment)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.hasPrefix("channel 1: ntfy"))
        let listed = try await KuronekoBinary.run(["channels", "list"], environment: environment)
        #expect(listed.standardOutput.contains("1  ntfy  http://127.0.0.1:\(receiver.port)/parcels"))
        let refusedPrivate = try await KuronekoBinary.run(["notify-test", "1"], environment: environment)
        #expect(refusedPrivate.status == 1)
        let sent = try await KuronekoBinary.run(["notify-test", "1", "--allow-private"], environment: environment)
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(sent.standardOutput == "channel 1: delivered (HTTP 200)\n")
        let request = try #require(receiver.requests.first)
        #expect(request.path == "/parcels")
        #expect(request.headers["title"] == "Out for Delivery: Test (3277-5445-9830)")
        #expect(request.headers["priority"] == "4")
        #expect(String(decoding: request.body, as: UTF8.self) == "Out for Delivery")
        for (arguments, message) in [
            (["channels", "add", "--kind", "ntfy"], "url is missing"),
            (
                ["channels", "add", "--kind", "slack", "--url", "https://hooks.example/x", "--kinds", "all"],
                "is not one of"
            ),
            (["channels", "remove", "99"], "there is no channel 99"),
            (["notify-test", "x"], "usage: kuroneko notify-test ID"),
        ] {
            let refused = try await KuronekoBinary.run(arguments, environment: environment)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
        #expect(
            try await KuronekoBinary.run(["channels", "remove", "1"], environment: environment).standardOutput
                == "removed channel 1\n")
        // The morning summary's time, set where the channel is made, and shown in the list; named in the help.
        let morning = try await KuronekoBinary.run(
            ["channels", "add", "--kind", "ntfy", "--url", "http://127.0.0.1:\(receiver.port)/family", "--kinds",
             "morning_summary", "--summary-at", "06:30", "--allow-private"], environment: environment)
        #expect(morning.status == 0, "\(morning.standardError)")
        let withTime = try await KuronekoBinary.run(["channels", "list"], environment: environment)
        #expect(withTime.standardOutput.contains("morning_summary at 06:30"), "\(withTime.standardOutput)")
        let badTime = try await KuronekoBinary.run(
            ["channels", "add", "--kind", "ntfy", "--url", "https://ntfy.example/x", "--kinds", "morning_summary",
             "--summary-at", "25:00"], environment: environment)
        #expect(badTime.status == 2 && badTime.standardError.contains("HH:MM"), "\(badTime.standardError)")
        // The preview of this morning's summary: nothing in an empty list, said so (no summary is sent).
        let preview = try await KuronekoBinary.run(["channels", "summary", "--lang", "en"], environment: environment)
        #expect(preview.status == 0 && preview.standardOutput == "nothing to say this morning (no summary is sent)\n",
            "\(preview.standardOutput) \(preview.standardError)")
        let help = try await KuronekoBinary.run(["channels", "--help"], environment: environment)
        #expect(help.standardOutput.contains("--summary-at") && help.standardOutput.contains("morning_summary"))
    }

    @Test("a LINE channel: the token from the environment, never printed; notify-test reaches LINE's stand-in")
    func line() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        let user = "U" + String(repeating: "0123456789abcdef", count: 2)
        var environment = [
            "KURONEKO_DB": FileManager.default.temporaryDirectory.appendingPathComponent(
                "line-\(UUID().uuidString).sqlite"
            ).path,
            "KURONEKO_LINE_ACCESS_TOKEN": line.token,
        ]
        let added = try await KuronekoBinary.run(["channels", "add", "--kind", "line", "--to", user], environment: environment)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput == "channel 1: line U0123…\n")
        let refused = try await KuronekoBinary.run(["channels", "add", "--kind", "line", "--to", "friends"], environment: environment)
        #expect(refused.status == 2 && refused.standardError.contains("is not a LINE ID"), "\(refused.standardError)")
        environment["KURONEKO_LINE_ACCESS_TOKEN"] = nil
        let tokenless = try await KuronekoBinary.run(["channels", "add", "--kind", "line", "--to", "broadcast"], environment: environment)
        #expect(tokenless.status == 2 && tokenless.standardError.contains("access_token is missing"))
        let sent = try await KuronekoBinary.run(
            ["notify-test", "1", "--line-origin", line.origin.absoluteString], environment: environment)
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(sent.standardOutput == "channel 1: delivered (HTTP 200)\n")
        #expect(line.accepted.map(\.to) == [[user]])
        #expect(line.accepted.first?.text.contains("配達中: テスト (3277-5445-9830)") == true)
        let listed = try await KuronekoBinary.run(["channels", "list"], environment: environment)
        #expect(listed.standardOutput.contains("1  line  U0123…"))
        for output in [added, sent, listed] {
            #expect(!(output.standardOutput + output.standardError).contains(line.token))
        }
    }
}
