import Foundation
import Kuroneko
import KuronekoStore
import KuronekoTestSupport
import Testing

/// What an operator meets: the addresses `--host` takes, JSON log lines, readiness through `NOTIFY_SOCKET`,
/// a database from a newer Kuroneko, and `kuroneko db status|backup`.
@Suite("the operator's basics", .serialized, .timeLimit(.minutes(10)))
struct OperatorTests {
    private static func database() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("operator-\(UUID().uuidString).sqlite").path
    }

    @Test(
        "--host takes IPv4, IPv6 and names; :: takes IPv4 too",
        arguments: [
            ("::1", #"\[::1\]"#, ["[::1]"]), ("localhost", #"127\.0\.0\.1"#, ["127.0.0.1"]),
            ("0.0.0.0", #"0\.0\.0\.0"#, ["127.0.0.1"]), ("::", #"\[::\]"#, ["[::1]", "127.0.0.1"]),
            ("[::1]", #"\[::1\]"#, ["[::1]"]),
        ])
    func hosts(host: String, shown: String, reachable: [String]) async throws {
        let server = try await ServerProcess(["serve", "--demo", "--host", host], host: shown)
        defer { server.terminate() }
        for address in reachable {
            let statusLine = await onOwnThread { [port = server.port] in Self.statusLine(of: address, port: port) }
            #expect(statusLine == "HTTP/1.1 200 OK", "\(host) through \(address)")
        }
    }

    /// `GET /healthz` over a socket of its own to a literal address (`127.0.0.1`, `[::1]`): the status line.
    private static func statusLine(of address: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let bare = address.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard getaddrinfo(bare, String(port), &hints, &found) == 0, let entry = found else { return nil }
        defer { freeaddrinfo(entry) }
        let descriptor = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, 0)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 else { return nil }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self).components(separatedBy: "\r\n").first
    }

    @Test("a --host that is neither an address nor a name that resolves is one line and exit 2")
    func badHosts() async throws {
        for host in ["bad host", "nowhere.invalid", "1.2.3.4.5", "::g"] {
            let outcome = try await KuronekoBinary.runAside(["serve", "--demo", "--port", "0", "--host", host])
            #expect(outcome.status == 2, "\(host)")
            let lines = outcome.standardError.split(separator: "\n").filter { !$0.contains("creating the watch list") }
            #expect(lines.count == 1 && lines[0].contains("--host \"\(host)\""), "\(outcome.standardError)")
        }
    }

    @Test("--log-format json: every line the server writes is one JSON object with time, level and msg")
    func jsonLog() async throws {
        let server = try await ServerProcess(["serve", "--demo", "--log-format", "json"])
        let number = ValidNumbers.numbers(1)[0]
        _ = try await HTTPClient.send("GET", server.baseURL + "/v1/shipments/\(number.digits)")
        _ = try await HTTPClient.send("GET", server.baseURL + "/nowhere", headers: ["X-Request-ID": #"a"b\c"#])
        let (status, log) = await server.stop()
        #expect(status == 0)
        let lines = log.split(separator: "\n").map(String.init)
        var messages: [String] = []
        var requests: [[String: Any]] = []
        for line in lines {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            let time = try #require(object["time"] as? String, "\(line)")
            #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
            #expect(["info", "warning", "error"].contains(object["level"] as? String ?? ""))
            let message = try #require(object["msg"] as? String, "\(line)")
            messages.append(message)
            if message == "request" { requests.append(object) }
        }
        #expect(messages.contains { $0.hasPrefix("creating the watch list") })
        #expect(messages.contains { $0.hasPrefix("listening on http://127.0.0.1:\(server.port)") })
        #expect(messages.contains { $0.hasPrefix("SIGTERM received") } && messages.contains { $0.hasPrefix("stopped after") })
        #expect(requests.count == 2)
        #expect(requests.first?["status"] as? Int == 200 && requests.first?["route"] as? String == "/v1/shipments/{number}")
        #expect(requests.last?["status"] as? Int == 404 && requests.last?["id"] as? String == #"a"b\c"#)
        #expect(requests.allSatisfy { $0["duration_ms"] is Double })
    }

    @Test("readiness and stopping are told to the service manager through NOTIFY_SOCKET")
    func notifySocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))").path
        let receiver = try DatagramReceiver(path: path)
        let server = try await ServerProcess(["serve", "--demo"], environment: ["NOTIFY_SOCKET": path])
        let ready = await onOwnThread { receiver.receive(timeoutSeconds: 30) }
        #expect(ready?.hasPrefix("READY=1\nSTATUS=listening on http://127.0.0.1:\(server.port)") == true, "\(ready ?? "nothing")")
        server.send(signal: SIGTERM)
        let stopping = await onOwnThread { receiver.receive(timeoutSeconds: 30) }
        #expect(stopping?.hasPrefix("STOPPING=1") == true, "\(stopping ?? "nothing")")
        #expect(await server.waitForExit().status == 0)
        // A socket nobody listens on: said on stderr, since a Type=notify unit would wait for nothing.
        let unheard = try await ServerProcess(["serve", "--demo"], environment: ["NOTIFY_SOCKET": path + "-nobody"])
        defer { unheard.terminate() }
        #expect(await unheard.waitForLog("READY=1 could not be sent there", timeout: .seconds(120)))
    }

    @Test("a database from a newer Kuroneko: serve and the commands refuse it in one line naming both versions; it stays as it was")
    func newerSchema() async throws {
        let path = Self.database()
        do {
            let store = try SQLiteWatchStore(path: path)
            _ = try await store.add(ValidNumbers.numbers(1)[0], label: nil, owner: .local, webhook: nil, now: Date())
            _ = try store.database.writeNow { connection in try connection.run("PRAGMA user_version = 99") }
        }
        let before = FileManager.default.contents(atPath: path)
        for arguments in [["serve", "--port", "0"], ["list"], ["db", "status"]] {
            let outcome = try await KuronekoBinary.runAside(arguments + ["--db", path])
            #expect(outcome.status == 2, "\(arguments)")
            let lines = outcome.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(outcome.standardError)")
            #expect(
                lines.first?.contains(
                    "is at schema version 99, written by a newer Kuroneko; this one (\(KuronekoVersion.version)) knows "
                        + "versions up to \(SchemaVersions.latest) and left the database untouched") == true)
        }
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test("db status counts what the list holds; db backup copies it while a server writes to it, and the copy is sound")
    func statusAndBackup() async throws {
        let path = Self.database()
        let server = try await ServerProcess(["serve", "--demo", "--db", path])
        defer { server.terminate() }
        let numbers = ValidNumbers.numbers(30, from: 44_000_000_000)
        for number in numbers.prefix(20) {
            let added = try await HTTPClient.send("POST", server.baseURL + "/v1/watches", body: #"{"number": "\#(number.digits)"}"#)
            #expect(added.status == 201)
        }
        // The server goes on adding while the copy is made.
        let base = server.baseURL
        async let more: [Int] = {
            var statuses: [Int] = []
            for number in numbers.suffix(10) {
                statuses.append(
                    (try? await HTTPClient.send(
                        "POST", base + "/v1/watches", body: #"{"number": "\#(number.digits)"}"#).status) ?? 0)
            }
            return statuses
        }()
        let copy = Self.database()
        let backup = try await KuronekoBinary.runAside(["db", "backup", copy, "--db", path])
        #expect(backup.status == 0, "\(backup.standardError)")
        #expect(backup.standardOutput.contains("backup written to \(copy): schema version \(SchemaVersions.latest)"))
        #expect(await more.allSatisfy { $0 == 201 })
        let copied = try SQLiteWatchStore(path: copy)
        #expect(try copied.database.integrityCheck() == ["ok"])
        let summary = try await copied.summary()
        let held = summary.activeWatches + summary.finishedWatches
        #expect((20...30).contains(held), "the copy holds the 20 added before and some of those added meanwhile")
        let status = try await KuronekoBinary.runAside(["db", "status", "--db", path])
        #expect(status.status == 0)
        #expect(status.standardOutput.contains("engine: SQLite\nlocation: \(path)\nschema version: \(SchemaVersions.latest)"))
        let counts = try #require(
            status.standardOutput.firstMatch(of: /watches: (\d+) active, (\d+) finished/), "\(status.standardOutput)")
        #expect(Int(counts.1)! + Int(counts.2)! == 30)
        let again = try await KuronekoBinary.runAside(["db", "backup", copy, "--db", path])
        #expect(again.status == 2 && again.standardError.contains("exists already"))
        let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

/// A datagram socket bound at a path, standing in for systemd's notification socket.
final class DatagramReceiver: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(descriptor) }

    /// The next datagram, or `nil` after `timeoutSeconds`.
    func receive(timeoutSeconds: Int) -> String? {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, Int32(timeoutSeconds * 1_000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}
