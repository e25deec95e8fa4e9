import Foundation
import KuronekoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for tests that need to hold connections open or send raw bytes.
///
/// `request` waits for the answer on a thread of its own. Sendable: the descriptor is set once and the socket
/// calls on it are safe from any thread; a test uses one connection from one task at a time.
final class RawConnection: @unchecked Sendable {
    fileprivate let descriptor: Int32

    /// - Parameter receiveTimeout: how long one read waits before it gives up (a bound that catches a hang).
    init(port: Int, receiveTimeout: Int = 10) throws {
        descriptor = Loopback.connect(port: port)
        guard descriptor >= 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Sends the bytes and returns what arrives before the answer's headers and body are complete.
    func request(_ text: String) async throws -> String {
        try await onOwnThread { [self] in Result { try requestBlocking(text) } }.get()
    }

    private func requestBlocking(_ text: String) throws -> String {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw POSIXError(.EPIPE)
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
            let answer = String(decoding: received, as: UTF8.self)
            if let end = answer.range(of: "\r\n\r\n"),
                let lengthLine = answer[..<end.lowerBound].split(separator: "\r\n").first(where: {
                    $0.lowercased().hasPrefix("content-length:")
                }),
                let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                received.count - answer[..<end.upperBound].utf8.count >= length
            {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}

extension RawConnection {
    /// Whether the server has sent anything not read yet (or closed the connection), without waiting.
    var hasBytesWaiting: Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) >= 0
    }

    /// Ends the connection in both directions now (the descriptor is closed when the value goes).
    func shutDown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends the bytes without waiting for an answer.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw POSIXError(.EPIPE)
        }
    }
}
