import Foundation
import KuronekoNotify
import KuronekoProcess
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A mosquitto broker (Debian's, 2.x) of a test's own on 127.0.0.1: anonymous, nothing persisted, on a port
/// found free; stopped and started again on the same port (a broker restart forgets every retained message).
public final class MosquittoBroker: Sendable {
    public static let executable = "/usr/sbin/mosquitto"
    public static var installed: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    /// Whether the run must have it (scripts/test sets KURONEKO_REQUIRE_MQTT=1 after installing it).
    public static var required: Bool { ProcessInfo.processInfo.environment["KURONEKO_REQUIRE_MQTT"] == "1" }

    public let port: Int
    private let directory: String
    private let child: Mutex<ChildProcess?>
    private let tls: Bool
    private let user: (name: String, password: String)?

    /// The authority that signed the broker's certificate (127.0.0.1 and localhost), when it speaks TLS.
    public var caFile: String { directory + "/ca.pem" }

    /// - Parameters:
    ///   - tls: TLS only, with a certificate from an authority made here (``caFile``).
    ///   - user: one user and password, nobody anonymous.
    public init(tls: Bool = false, user: (name: String, password: String)? = nil) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = Loopback.freePort()
        child = Mutex(nil)
        self.tls = tls
        self.user = user
        var script = "cd '\(directory)'"
        if tls {
            script += """

                openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=Kuroneko test CA"
                openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost"
                printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext
                openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext
                chmod 644 server.key
                """
        }
        if let user { script += "\nmosquitto_passwd -c -b passwd '\(user.name)' '\(user.password)' && chmod 644 passwd" }
        try await Self.shell(script)
        try await start()
    }

    private static func shell(_ script: String) async throws {
        let nothing = open("/dev/null", O_RDWR)
        defer { close(nothing) }
        let child = try ChildProcess("/bin/sh", ["-ec", script], input: nothing, output: nothing, error: nothing)
        let status = await onOwnThread { child.wait() }
        if status != 0 { throw MosquittoError(description: "making the broker's files failed (\(status))") }
    }

    /// Starts the broker and returns once it accepts connections (within a minute).
    public func start() async throws {
        let config = directory + "/mosquitto.conf"
        var lines = ["listener \(port) 127.0.0.1", "persistence false"]
        lines += user == nil ? ["allow_anonymous true"] : ["allow_anonymous false", "password_file \(directory)/passwd"]
        if tls {
            lines += ["cafile \(directory)/ca.pem", "certfile \(directory)/server.pem", "keyfile \(directory)/server.key"]
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: config, atomically: true, encoding: .utf8)
        let log = open(directory + "/mosquitto.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let nothing = open("/dev/null", O_RDONLY)
        defer {
            close(log)
            close(nothing)
        }
        let started = try ChildProcess(Self.executable, ["-c", config], input: nothing, output: log, error: log)
        child.withLock { $0 = started }
        let port = self.port
        let up = try await eventually(within: .seconds(60)) {
            await onOwnThread {
                let socket = Loopback.connect(port: port)
                if socket >= 0 { close(socket) }
                return socket >= 0
            }
        }
        guard up else { throw MosquittoError(description: "mosquitto did not listen on \(port) within 60 s") }
    }

    /// Stops the broker (SIGTERM) and waits for it to end, on a thread of its own.
    public func stop() async {
        guard let running = child.withLock({ state -> ChildProcess? in
            defer { state = nil }
            return state
        }) else { return }
        running.send(signal: SIGTERM)
        _ = await onOwnThread { running.wait() }
    }

    deinit {
        child.withLock { $0?.send(signal: SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

public struct MosquittoError: Error, CustomStringConvertible {
    public let description: String
}

/// Everything a broker hears on `homeassistant/#` and `kuroneko/#`, in order, through the project's own client.
public final class MQTTListener: Sendable {
    public let client: MQTTClient
    private let heard = Heard()
    private let reader: Task<Void, Never>

    public init(port: Int) {
        var settings = try! MQTTSettings(url: "mqtt://127.0.0.1:\(port)", password: nil)
        // Each its own: a broker ends the older of two connections with one client id.
        settings.clientID = "listener-\(UUID().uuidString.prefix(8))"
        client = MQTTClient(settings: settings, subscriptions: ["homeassistant/#", "kuroneko/#"], will: nil)
        let heard = self.heard
        let events = client.events
        reader = Task {
            for await event in events {
                if case .message(let message) = event { heard.list.withLock { $0.append(message) } }
            }
        }
        client.start()
    }

    private final class Heard: Sendable {
        let list = Mutex<[MQTTMessage]>([])
    }

    public var messages: [MQTTMessage] { heard.list.withLock { $0 } }

    /// The payload last heard on `topic`.
    public func last(_ topic: String) -> Data? { messages.last { $0.topic == topic }?.payload }

    /// What the broker keeps, as a client that connects now is told it (the messages flagged retained).
    public var retained: [String: Data] {
        var out: [String: Data] = [:]
        for message in messages where message.retain { out[message.topic] = message.payload }
        return out
    }

    public func publish(_ topic: String, _ text: String) async throws {
        let sent = try await eventually(within: .seconds(30)) { client.publish([MQTTMessage(topic: topic, text: text, retain: false)]) }
        if !sent { throw MosquittoError(description: "the listener never connected to publish on \(topic)") }
    }

    public func stop() async {
        await client.stop(last: [])
        reader.cancel()
    }
}
