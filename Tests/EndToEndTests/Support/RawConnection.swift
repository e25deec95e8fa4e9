import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for tests that need to hold connections open or send raw bytes.
final class RawConnection {
    fileprivate let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Sends the bytes and returns what arrives before the answer's headers and body are complete.
    func request(_ text: String) throws -> String {
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
    /// Sends the bytes without waiting for an answer.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw POSIXError(.EPIPE)
        }
    }
}

extension RawConnection {
    /// One GET on a connection of its own, without URLSession: the status and the body.
    static func get(port: Int, _ target: String) throws -> (status: Int?, body: String) {
        let answer = try RawConnection(port: port).request(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let status = parts.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
