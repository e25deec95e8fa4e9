import Foundation
import KuronekoProcess
import KuronekoTestSupport
import Testing
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A long-running `kuroneko` server (`simulate`, `serve`) started for a test and always stopped.
///
/// Its standard error is read all the time it runs, so that a server logging a line per request never
/// blocks on a full pipe.
///
/// Nothing here blocks a thread of the cooperative pool: starting waits for the "listening on" line on a
/// thread of its own, `stop()` waits for the exit there too, and `terminate()` (for `defer`) and `deinit` only
/// send the signal and leave the exit to be reaped by a thread of its own.
final class ServerProcess: Sendable {
    private let child: ChildProcess
    let port: Int
    private let errorPipe: Pipe
    private let log: LogCollector
    /// Started with `--log-format json`: every line it writes must then be one JSON object with a message.
    private let writesJSON: Bool

    /// How long a server may take to say it is listening.
    static let startTimeout = Duration.seconds(120)

    /// Starts `kuroneko ARGUMENTS --port 0` and waits (at most ``startTimeout``) for its "listening on" line.
    /// - Parameters:
    ///   - environment: set on top of this process's own.
    ///   - host: the address the line names, as a regular expression (`\[::1\]` for IPv6 loopback).
    init(_ arguments: [String], environment: [String: String] = [:], host: String = #"127\.0\.0\.1"#) async throws {
        let errorPipe = Pipe()
        let log = LogCollector()
        writesJSON = zip(arguments, arguments.dropFirst()).contains { $0 == ("--log-format", "json") }
            || environment["KURONEKO_LOG_FORMAT"] == "json"
        self.errorPipe = errorPipe
        self.log = log
        let nothing = try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null"))
        var merged = KuronekoBinary.environment
        merged.merge(environment) { $1 }
        child = try ChildProcess(
            KuronekoBinary.url.path, arguments + ["--port", "0"], environment: merged, input: nothing.fileDescriptor,
            output: nothing.fileDescriptor, error: errorPipe.fileHandleForWriting.fileDescriptor)
        try nothing.close()
        try errorPipe.fileHandleForWriting.close()
        log.start(reading: errorPipe.fileHandleForReading)
        let child = self.child
        let started: Result<Int, ServerProcessError> = await onOwnThread {
            let deadline = ContinuousClock.now + Self.startTimeout
            while true {
                let text = log.snapshot()
                if let range = text.range(of: "listening on http://\(host):(\\d+)", options: .regularExpression) {
                    return .success(text[range].split(separator: ":").last.flatMap { Int($0) } ?? 0)
                }
                guard child.isRunning, ContinuousClock.now < deadline else {
                    child.send(signal: SIGTERM)
                    child.wait()
                    return .failure(ServerProcessError(output: text))
                }
                log.waitForMore(timeout: .milliseconds(100))
            }
        }
        port = try started.get()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM (or the given signal) and waits; the exit status and the rest of what the server wrote
    /// on stderr.
    func stop(signal: Int32 = SIGTERM) async -> (status: Int32, log: String) {
        send(signal: signal)
        return await waitForExit()
    }

    /// Sends SIGTERM (or the given signal) and returns at once; the exit is reaped on a thread of its own
    /// (for `defer`).
    func terminate(signal: Int32 = SIGTERM) {
        guard child.isRunning else { return }
        child.send(signal: signal)
        let child = self.child
        Thread { child.wait() }.start()
    }

    /// What the server has written on standard error so far.
    var logSoFar: String { log.snapshot() }

    /// Waits (on a thread of its own) until the server's standard error contains `text`, for at most
    /// `timeout`: woken by each chunk the server writes, not by a timer.
    func waitForLog(_ text: String, timeout: Duration = .seconds(120)) async -> Bool {
        let log = self.log
        return await onOwnThread {
            let deadline = ContinuousClock.now + timeout
            while !log.snapshot().contains(text) {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return false }
                log.waitForMore(timeout: left)
            }
            return true
        }
    }

    func send(signal: Int32) {
        child.send(signal: signal)
    }

    func waitForExit() async -> (status: Int32, log: String) {
        let child = self.child
        let log = self.log
        let exit = await onOwnThread { (child.wait(), log.finish()) }
        if writesJSON { Self.checkJSONLines(exit.1) }
        return exit
    }

    /// Records an issue for each line of a JSON log that is not one JSON object with `time`, `level` and a
    /// string `msg` (what every test's JSON server is held to, whatever else it checks).
    static let flagFields: Set<String> = ["allow_private_webhooks", "require_api_key", "smtp_auth"]

    static func checkJSONLines(_ log: String) {
        for line in log.split(separator: "\n") {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard object?["msg"] is String, object?["time"] is String, object?["level"] is String else {
                Issue.record("a line of the JSON log is not one JSON object with time, level and msg: \(line)")
                continue
            }
            // A word of a sentence made a field (`"after":true`) was the old log's fault; only settings are flags.
            let flags = line.matches(of: /"([^"]+)":true/).map { String($0.output.1) }
            if let word = flags.first(where: { !Self.flagFields.contains($0) }) {
                Issue.record("the JSON log has a field \(word): true, not one of the settings that are flags: \(line)")
            }
        }
    }

    deinit {
        terminate()
    }
}

/// Reads a pipe on its own thread until the end, keeping what it read.
private final class LogCollector: @unchecked Sendable {
    // @unchecked Sendable: `data` is guarded by `lock`; `done` is a semaphore.
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    private let arrived = DispatchSemaphore(value: 0)
    private var started = false

    func start(reading handle: FileHandle) {
        started = true
        Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.lock()
                data.append(chunk)
                lock.unlock()
                arrived.signal()
            }
            arrived.signal()
            done.signal()
        }.start()
    }

    /// Returns when more has been read (or the pipe closed), or after `timeout`.
    func waitForMore(timeout: Duration) {
        _ = arrived.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1))))
    }

    /// Everything read until now.
    func snapshot() -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Everything read, once the writer has closed the pipe (blocks: call it on a thread of its own).
    func finish() -> String {
        if started { done.wait() }
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    let output: String
    var description: String { "the server did not start listening within the start timeout: \(output)" }
}

/// Plain HTTP from a test, through URLSession.
enum HTTPClient {
    static func send(_ method: String, _ url: String, body: String? = nil, headers: [String: String] = [:])
        async throws -> (status: Int, body: Data)
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
