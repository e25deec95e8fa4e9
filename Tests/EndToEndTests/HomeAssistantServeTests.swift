import Foundation
import KuronekoTestSupport
import Testing

/// `kuroneko serve --mqtt` against mosquitto: the device comes online with its entities; a server stopped says
/// offline itself, a server killed has the broker say it (the will); a broker URL or topic that cannot work is
/// refused at start in one line.
@Suite(
    "serve --mqtt", .serialized, .timeLimit(.minutes(5)),
    .enabled(
        if: MosquittoBroker.installed || MosquittoBroker.required,
        "mosquitto is not installed (apt-get install mosquitto); scripts/test installs it"))
struct HomeAssistantServeTests {
    @Test func onlineThenOfflineWhetherStoppedOrKilled() async throws {
        let broker = try await MosquittoBroker()
        let listener = MQTTListener(port: broker.port)
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString).sqlite").path
        let arguments = ["serve", "--demo", "--db", database, "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-language", "en"]
        let status = "kuroneko/status"
        let button = "homeassistant/button/kuroneko/refresh/config"

        let first = try await ServerProcess(arguments)
        #expect(try await eventually(within: .seconds(60)) { listener.last(status) == Data("online".utf8) && listener.last(button) != nil })
        #expect(String(decoding: listener.last(button) ?? Data(), as: UTF8.self).contains(#""name":"Check now""#))
        #expect(await first.waitForLog("home assistant: connected to the broker", timeout: .seconds(30)))
        let stopped = await first.stop()
        #expect(stopped.status == 0, "\(stopped.log)")
        #expect(try await eventually(within: .seconds(30)) { listener.last(status) == Data("offline".utf8) }, "said when stopped")

        let second = try await ServerProcess(arguments)
        #expect(try await eventually(within: .seconds(60)) { listener.last(status) == Data("online".utf8) })
        _ = await second.stop(signal: SIGKILL)
        #expect(try await eventually(within: .seconds(30)) { listener.last(status) == Data("offline".utf8) }, "the will")
        await listener.stop()
        await broker.stop()
    }

    /// A broker that is not there is said once in the log (not at every attempt), and the server runs on.
    @Test func anAbsentBrokerIsSaid() async throws {
        let port = Loopback.freePort()
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString).sqlite").path
        let server = try await ServerProcess(["serve", "--demo", "--db", database, "--mqtt", "mqtt://127.0.0.1:\(port)"])
        #expect(await server.waitForLog("home assistant: 127.0.0.1:\(port) refused the connection", timeout: .seconds(60)))
        let health = try await RawConnection(port: server.port).request("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
        let stopped = await server.stop()
        #expect(stopped.status == 0)
        #expect(stopped.log.components(separatedBy: "refused the connection").count == 2, "said once: \(stopped.log)")
    }

    @Test func refusedInOneLine() async throws {
        let cases: [([String], [String: String], String)] = [
            (["--mqtt", "http://broker"], [:], "is not mqtt://HOST[:PORT]"),
            (["--mqtt", "mqtt://u:secret@broker"], [:], "--mqtt-password-file"),
            (["--mqtt", "mqtt://broker", "--mqtt-topic", "kuroneko/#"], [:], "--mqtt-topic"),
            (["--mqtt", "mqtt://broker", "--mqtt-password-file", "/nonexistent/password"], [:], "cannot be read"),
            (["--mqtt", "mqtt://broker"], ["KURONEKO_MQTT_PASSWORD": "secret"], "a password without a user"),
        ]
        for (arguments, environment, words) in cases {
            let outcome = try await KuronekoBinary.run(["serve", "--port", "0"] + arguments, environment: environment)
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.contains(words), "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1, "\(outcome.standardError)")
        }
    }
}
