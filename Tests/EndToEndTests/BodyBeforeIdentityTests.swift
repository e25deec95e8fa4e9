import Foundation
import KuronekoTestSupport
import Synchronization
import KuronekoHTTP
import Testing

extension KuronekoHTTP.HTTPResponse {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A large body is read only for a caller the headers name, and only within the server's budget: strangers are
/// answered at once with nothing of their bodies read, key holders past the budget are answered 503 before
/// theirs is, and what was held comes back when the connections go.
@Suite("identity before the body", .timeLimit(.minutes(10)))
struct BodyBeforeIdentityTests {
    /// Just under the import route's 16 MiB.
    static let bodyBytes = 16 * 1024 * 1024 - 1

    static func head(_ extra: String = "", length: Int = bodyBytes) -> String {
        "POST /v1/watches/import HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n\(extra)Content-Length: \(length)\r\n\r\n"
    }

    static func status(_ answer: String) -> Int {
        Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// A new list's database in a folder of its own, with a key named shop (closing the API to strangers).
    static func listWithAKey() async throws -> (folder: URL, database: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("list.sqlite").path
        let made = try await KuronekoBinary.run(["keys", "create", "--name", "shop", "--db", database])
        let key = try #require(made.standardOutput.firstMatch(of: /key shop: (\S+)/)?.1).description
        return (folder, database, key)
    }

    @Test("64 strangers with 16 MiB bodies are refused unread; 64 key holders get the 64 MiB budget and 503 past it")
    func strangersAndBudget() async throws {
        let (folder, database, key) = try await Self.listWithAKey()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess([
            "serve", "--db", database, "--endpoint", "http://127.0.0.1:9", "--receive-timeout", "0",
        ])
        defer { server.terminate() }

        // Strangers: each sends its head and the first bytes of 16 MiB; each is answered 401 at once, the
        // connection closed, nothing held.
        let strangers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    let connection = try RawConnection(port: server.port)
                    return Self.status(try await connection.request(Self.head() + String(repeating: "1", count: 1024)))
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(strangers == Array(repeating: 401, count: 64), "\(strangers)")

        // Key holders: four bodies fit the 64 MiB budget; the other sixty are answered 503 with Retry-After
        // before their bodies are read. The four admitted are still waiting for theirs.
        let refused = Answers()
        let holders = try (0..<64).map { _ in try RawConnection(port: server.port) }
        let keyed = Self.head("Authorization: Bearer \(key)\r\n") + "number\r\n"
        let readers = Task { [holders] in
            await withTaskGroup(of: Void.self) { group in
                for connection in holders {
                    group.addTask {
                        try? connection.send(keyed)
                        // An admitted connection hears nothing (its read gives up empty after 10 s).
                        if let answer = try? await connection.request(""), !answer.isEmpty {
                            refused.list.withLock { $0.append(answer) }
                        }
                    }
                }
            }
        }
        let sixty = try await eventually { refused.list.withLock { $0.count } >= 60 }
        let answers = refused.list.withLock { $0 }
        #expect(sixty, "\(answers.count) answered of 64")
        #expect(answers.count == 60, "four are read, the rest refused: \(answers.map(Self.status))")
        #expect(answers.allSatisfy { Self.status($0) == 503 && $0.contains("Retry-After: 2") && $0.contains("body_budget") })
        let metrics = try await SocketClient(port: server.port).get("/metrics").bodyText
        #expect(metrics.contains(#"kuroneko_http_body_bytes_held{caller="all"} \#(4 * Self.bodyBytes)"#), "\(metrics)")
        #expect(metrics.contains("kuroneko_http_body_budget_bytes 67108864"))

        // The four go away without finishing: what they held comes back.
        readers.cancel()
        for connection in holders { connection.shutDown() }
        #expect(
            try await eventually {
                try await SocketClient(port: server.port).get("/metrics").bodyText.contains(
                    #"kuroneko_http_body_bytes_held{caller="all"} 0"#)
            })

        // A key holder's large body is then read and answered by the route.
        var sheet = "number\r\n"
        while sheet.utf8.count < 100_000 { sheet += "not-a-number\r\n" }
        let imported = try await SocketClient(port: server.port).send(
            "POST", "/v1/watches/import", headers: ["Authorization": "Bearer \(key)", "Content-Type": "text/csv"],
            body: Data(sheet.utf8))
        #expect(imported.status != 401 && imported.status != 503 && imported.status != 413, "\(imported.bodyText)")
    }

    @Test("a stranger's chunked body is dropped past 64 KiB and refused; invented session cookies share 16 MiB")
    func chunkedAndUnconfirmed() async throws {
        let (folder, database, _) = try await Self.listWithAKey()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(["serve", "--db", database, "--endpoint", "http://127.0.0.1:9"])
        defer { server.terminate() }

        let chunk = String(repeating: "9", count: 16 * 1024)
        var chunked = "POST /v1/watches/import HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<8 { chunked += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
        chunked += "0\r\n\r\n"
        let answer = try await RawConnection(port: server.port).request(chunked)
        #expect(Self.status(answer) == 401 && answer.contains("Connection: close"), "\(answer)")
        // A stranger's small chunked body (a sign-in) is read and answered by its route as any other.
        let signIn = #"{"name": "mama", "password": "not-her-password"}"#
        let small = try await RawConnection(port: server.port).request(
            "POST /v1/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(signIn.utf8.count, radix: 16) + "\r\n" + signIn + "\r\n0\r\n\r\n")
        #expect(Self.status(small) == 401 && small.contains("bad_credentials"), "\(small)")
        // A large chunked one at a sign-in door is dropped past 64 KiB and refused, saying what it may be.
        let large = try await RawConnection(port: server.port).request(
            chunked.replacingOccurrences(of: "/v1/watches/import", with: "/v1/session"))
        #expect(Self.status(large) == 413 && large.contains("at most 64 KiB; this body is larger"), "\(large)")

        // Two invented session cookies: the first body fits the 16 MiB share for unconfirmed callers, the second
        // does not, whatever the rest of the budget holds.
        let cookie = { (digit: Character) in "Cookie: kuroneko_session=\(String(repeating: digit, count: 64))\r\n" }
        let first = try RawConnection(port: server.port)
        try first.send(Self.head(cookie("a")) + "number\r\n")
        #expect(
            try await eventually {
                try await SocketClient(port: server.port).get("/metrics").bodyText.contains(
                    #"kuroneko_http_body_bytes_held{caller="unconfirmed"} \#(Self.bodyBytes)"#)
            })
        let second = try await RawConnection(port: server.port).request(Self.head(cookie("b")) + "number\r\n")
        #expect(Self.status(second) == 503, "\(second)")
        first.shutDown()
    }
}

/// Answers collected from many tasks.
private final class Answers: Sendable {
    let list = Mutex<[String]>([])
}
