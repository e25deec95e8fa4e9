import Foundation
import Kuroneko
import KuronekoTestSupport
import Synchronization
import Testing

/// Mail is read off the server's cooperative pool: the worst uploads the server takes do not hold its other
/// requests.
@Suite("hostile mail and the server", .timeLimit(.minutes(10)))
struct HostileMailTests {
    /// A mail of `size` bytes of HTML made of carrier links, each closing an `<a>` (the shape that once copied
    /// everything written so far at each `</a>`).
    static func carrierLinks(size: Int) -> Data {
        let head = Data(
            ("From: shop@example.com\r\nSubject: links\r\nMessage-ID: <links@hostile.kuroneko.test>\r\n"
                + "Content-Type: text/html; charset=\"UTF-8\"\r\n\r\n").utf8)
        let link = Data(#"<a href="https://jizen.kuronekoyamato.co.jp/jizen/servlet/crjz.b.NQ0010?id=470801203456">x</a>"#.utf8)
        var mail = head
        while mail.count + link.count <= size { mail.append(link) }
        return mail
    }

    /// How fast /healthz answers meanwhile (p99 9.6 ms here) is bench/hostile-mail.sh's figure; what is tested is
    /// that it keeps answering while both mails are being read, and that both are read.
    @Test("two worst-case uploads at once: /healthz keeps answering while both are read, and both mails are read")
    func healthzBesideTwoUploads() async throws {
        let server = try await ServerProcess(["serve", "--demo", "--port", "0", "--min-interval", "0"])
        defer { server.terminate() }
        let api = SocketClient(port: server.port)
        // Reading two worst-case mails takes seconds alone and far longer beside a build: their answers may wait.
        let uploader = SocketClient(port: server.port, timeoutSeconds: 300)
        let mail = Self.carrierLinks(size: (4 << 20) - 1)
        let done = Flag()
        let uploads = Task { () async throws -> [Int] in
            defer { done.value.store(true, ordering: .releasing) }
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await uploader.send("POST", "/v1/watches/from-mail", headers: ["Content-Type": "message/rfc822"], body: mail)
                            .status
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
        }
        // /healthz, one after another, as long as the uploads are being read: a server whose mail reading held
        // its threads would answer none until the mails were read.
        var answeredWhileReading = 0
        var statuses: [Int] = []
        while !done.value.load(ordering: .acquiring) {
            let health = try await api.get("/healthz")
            statuses.append(health.status)
            if !done.value.load(ordering: .acquiring) { answeredWhileReading += 1 }
        }
        #expect(try await uploads.value == [200, 200])
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(answeredWhileReading >= 5, "/healthz answered \(answeredWhileReading) times while the mails were read")
    }
}

/// Set once, read from any task.
private final class Flag: Sendable {
    let value = Atomic(false)
}
