import Foundation
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

    public init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = Loopback.freePort()
        child = Mutex(nil)
        try await start()
    }

    /// Starts the broker and returns once it accepts connections (within a minute).
    public func start() async throws {
        let config = directory + "/mosquitto.conf"
        try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n".write(
            toFile: config, atomically: true, encoding: .utf8)
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
