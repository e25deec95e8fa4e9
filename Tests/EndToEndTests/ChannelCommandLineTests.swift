import Foundation
import KuronekoTestSupport
import Testing

/// `kuroneko channels` and `notify-test` on the local file, against a local receiver standing in for ntfy.
@Suite("channels on the command line", .timeLimit(.minutes(1)))
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
        let added = try KuronekoBinary.run(
            [
                "channels", "add", "--kind", "ntfy", "--url", "http://127.0.0.1:\(receiver.port)/parcels", "--lang",
                "en",
            ],
            environment: environment)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.hasPrefix("channel 1: ntfy"))
        let listed = try KuronekoBinary.run(["channels", "list"], environment: environment)
        #expect(listed.standardOutput.contains("1  ntfy  http://127.0.0.1:\(receiver.port)/parcels"))
        let refusedPrivate = try KuronekoBinary.run(["notify-test", "1"], environment: environment)
        #expect(refusedPrivate.status == 1)
        let sent = try KuronekoBinary.run(["notify-test", "1", "--allow-private"], environment: environment)
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
            let refused = try KuronekoBinary.run(arguments, environment: environment)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
        #expect(
            try KuronekoBinary.run(["channels", "remove", "1"], environment: environment).standardOutput
                == "removed channel 1\n")
    }
}
