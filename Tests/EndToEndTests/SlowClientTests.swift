import Foundation
import KuronekoTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Slow clients, at a small scale: they cannot hold the server, and a trickle does not keep a connection.
@Suite("kuroneko serve: slow clients", .serialized)
struct SlowClientTests {
    /// A connection from a given loopback address, holding it open.
    private static func connect(from source: String, port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        remote.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &local) { localPointer in
            withUnsafePointer(to: &remote) { remotePointer in
                localPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { localAddress in
                    remotePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { remoteAddress in
                        bind(descriptor, localAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                            && Glibc.connect(descriptor, remoteAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }
        if !ok {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    @Test("100 slow connections from one address cannot fill 64 slots for another, and die at the deadline")
    func slowConnections() async throws {
        let server = try await ServerProcess([
            "serve", "--demo", "--connections-per-client", "20", "--max-connections", "64", "--receive-timeout", "2",
        ])
        defer { server.terminate() }
        var slow: [Int32] = []
        for _ in 0..<100 {
            let descriptor = Self.connect(from: "127.0.0.1", port: server.port)
            if descriptor >= 0 {
                _ = Glibc.send(descriptor, "GET /healthz HTTP/1.1\r\nHo", 24, Int32(MSG_NOSIGNAL))
                slow.append(descriptor)
            }
        }
        defer { slow.forEach { close($0) } }
        // A normal client from another address is answered while all 100 are held.
        let normal = Self.connect(from: "127.0.0.2", port: server.port)
        #expect(normal >= 0)
        // The answer is waited for on a thread of its own (a blocking receive).
        let answer = await onOwnThread {
            let request = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            _ = Glibc.send(normal, request, request.count, Int32(MSG_NOSIGNAL))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(normal, &buffer, buffer.count, 0)
            close(normal)
            return String(decoding: buffer[0..<max(0, count)], as: UTF8.self)
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"))

        // The slow ones trickle a byte every 500 ms; the 2 s receive deadline closes them all the same. The
        // wait is for the server closing them (poll wakes on it); the 500 ms poll timeout paces the trickle.
        let sockets = slow
        let stillOpen = await onOwnThread { Self.trickleUntilClosed(sockets, rounds: 240) }
        #expect(stillOpen == 0, "\(stillOpen) slow connections still open after 240 trickles")
    }

    /// Sends a byte on every open socket, then waits up to 500 ms for news, `rounds` times at most (a bound that
    /// catches a server that never closes them); a socket the server closed (end of file or reset) leaves the
    /// set. Returns how many were still open at the end.
    private static func trickleUntilClosed(_ sockets: [Int32], rounds: Int) -> Int {
        var open = Set(sockets)
        for _ in 0..<rounds where !open.isEmpty {
            for descriptor in open where Glibc.send(descriptor, "s", 1, Int32(MSG_NOSIGNAL)) < 0 {
                open.remove(descriptor)
            }
            var entries = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), 500) > 0 else { continue }
            for entry in entries where entry.revents != 0 {
                var byte: UInt8 = 0
                let peeked = recv(entry.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    open.remove(entry.fd)
                }
            }
        }
        return open.count
    }
}
