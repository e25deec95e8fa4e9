import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback server that reads each request whole, then hands the socket to `answer`, which writes
/// whatever bytes a test needs (a gzip bomb, a redirect, half a body and a reset). One thread per
/// connection; the listener closes when the value is released.
public final class RawUpstream: Sendable {
    public let port: Int
    private let listener: Int32
    private let answered = Counter()

    /// - Parameters:
    ///   - readsRequest: read an HTTP request whole before `answer` (else `answer` has the socket as it connected).
    ///   - answer: writes the answer to the connected socket; the socket is closed afterwards.
    public init(readsRequest: Bool = true, answer: @escaping @Sendable (Int32) -> Void) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let counter = answered
        Thread.detachNewThread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread {
                    if readsRequest { Self.readRequest(connection) }
                    answer(connection)
                    close(connection)
                    counter.count.withLock { $0 += 1 }
                }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Connections answered so far.
    public var answeredCount: Int { answered.count.withLock { $0 } }

    /// The upstream's URL for the tracking form.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)/cgi-bin/tneko")! }

    /// Writes all of `bytes`; false when the peer went away.
    @discardableResult
    public static func write(_ socket: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = send(socket, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }

    /// Closes the socket with a TCP reset instead of an orderly end.
    public static func reset(_ socket: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    private static func readRequest(_ socket: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
            let length =
                head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - end.upperBound >= length { return }
        }
    }
}

/// A count shared with the connection threads.
private final class Counter: Sendable {
    let count = Mutex(0)
}
