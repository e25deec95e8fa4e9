import Foundation
import KuronekoHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// One way to send a request to the API and read the answer, so that the same route tests run in-process
/// and through libmicrohttpd on a socket.
public protocol APITestClient: Sendable, CustomStringConvertible {
    func send(_ method: String, _ target: String, headers: [String: String], body: Data) async throws -> HTTPResponse
}

extension APITestClient {
    public func get(_ target: String, headers: [String: String] = [:]) async throws -> HTTPResponse {
        try await send("GET", target, headers: headers, body: Data())
    }
}

/// Straight into an application, as the adapter would call it.
public struct InProcessClient: APITestClient {
    private let application: any HTTPApplication

    public init(_ application: any HTTPApplication) {
        self.application = application
    }

    public var description: String { "in-process" }

    public func send(_ method: String, _ target: String, headers: [String: String], body: Data) async throws
        -> HTTPResponse
    {
        let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
        switch application.answer(request) {
        case .now(let response): return response
        case .later(let work): return await work()
        }
    }
}

/// HTTP/1.1 over a loopback socket, one connection per request (`Connection: close`, read to the end).
public struct SocketClient: APITestClient {
    private let port: Int
    /// How long a read may wait for the server's next bytes before the exchange fails.
    private let timeoutSeconds: Int

    public init(port: Int, timeoutSeconds: Int = 20) {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    public var description: String { "through libmicrohttpd" }

    public func send(_ method: String, _ target: String, headers: [String: String], body: Data) async throws
        -> HTTPResponse
    {
        let port = self.port
        let timeoutSeconds = self.timeoutSeconds
        // Blocking socket calls stay off the threads the tests' tasks share.
        return try await onOwnThread {
            Result {
                try Self.exchange(port: port, timeoutSeconds: timeoutSeconds, method, target, headers: headers, body: body)
            }
        }.get()
    }

    private static func exchange(
        port: Int, timeoutSeconds: Int, _ method: String, _ target: String, headers: [String: String], body: Data
    ) throws -> HTTPResponse {
        let descriptor = Loopback.connect(port: port)
        guard descriptor >= 0 else { throw POSIXError(.ECONNREFUSED) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        var bytes = Data((head + "\r\n").utf8)
        bytes.append(body)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(.EPIPE) }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { throw POSIXError(.EBADMSG) }
        let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let fields: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPResponse(status: status, headers: fields, body: Data(received[end.upperBound...]))
    }
}
