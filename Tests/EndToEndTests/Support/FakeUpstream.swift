import Foundation
import KuronekoTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 standing in for Yamato's tracking form in end-to-end tests.
///
/// One thread accepts and answers connections one at a time (`Connection: close`), which is all a CLI run
/// needs. Every request is recorded so tests can check what was, or was not, sent.
final class FakeUpstream: @unchecked Sendable {
    // @unchecked Sendable: `requests` is guarded by `lock`; the socket is written once before the thread starts.
    struct Request: Sendable {
        let method: String
        let path: String
        let headers: [String: String]
        let body: Data
    }

    struct Response: Sendable {
        var status: Int
        var contentType = "text/html; charset=UTF-8"
        var body: Data
        var headers: [String: String] = [:]
        /// Close the connection without an answer (the request was taken; its answer is lost on the way).
        var dropConnection = false
    }

    private let listener: Int32
    let port: Int
    private let handler: @Sendable (Request) -> Response
    private let lock = NSLock()
    private var received: [Request] = []
    /// With `concurrent`, each connection is answered on a thread of its own, so overlapping requests
    /// overlap here too; ``inFlightPeak`` then says how many overlapped at most.
    private let concurrent: Bool
    private var inFlight = 0
    private var peak = 0
    private var abandonedCount = 0
    private let answeredRequests = Mutex<[Request]>([])
    /// POLLRDHUP (Linux): the peer closed its end. Glibc's module does not bring the constant over.
    private static let peerHungUp: Int16 = 0x2000
    private let answerArrived = NSCondition()

    /// Starts listening on a free port.
    init(concurrent: Bool = false, handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        self.concurrent = concurrent
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        listener = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The most requests being answered at once so far.
    var inFlightPeak: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }

    /// Requests whose client hung up before the answer (counted in flight only until then).
    var abandoned: Int {
        lock.lock()
        defer { lock.unlock() }
        return abandonedCount
    }

    /// The endpoint URL to give `kuroneko track --endpoint`.
    var endpoint: String { "http://127.0.0.1:\(port)/cgi-bin/tneko" }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Waits (on a thread of its own, woken by each answer) until the requests answered so far satisfy
    /// `condition`, for at most `timeout`.
    func waitForAnswers(timeout: Duration = .seconds(120), until condition: @escaping @Sendable ([Request]) -> Bool)
        async -> Bool
    {
        await onOwnThread { [self] in
            let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
            answerArrived.lock()
            defer { answerArrived.unlock() }
            while !condition(answeredRequests.withLock { $0 }) {
                guard answerArrived.wait(until: deadline) else { return condition(answeredRequests.withLock { $0 }) }
            }
            return true
        }
    }

    /// Stops accepting; the accept thread ends on its own (nothing waits for it, so no thread is held).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            if concurrent {
                Thread { [self] in
                    serve(connection)
                    close(connection)
                }.start()
            } else {
                serve(connection)
                close(connection)
            }
        }
    }

    private func serve(_ connection: Int32) {
        guard let request = readRequest(connection) else { return }
        lock.lock()
        received.append(request)
        inFlight += 1
        peak = max(peak, inFlight)
        lock.unlock()
        // A request counts as in flight while its client waits: one that hangs up (it gave the POST up)
        // leaves at once, as a cancelled POST frees its place in the client's budget.
        let ended = Once()
        let leave: @Sendable (Bool) -> Void = { [self] abandoned in
            guard ended.first() else { return }
            lock.lock()
            inFlight -= 1
            if abandoned { abandonedCount += 1 }
            lock.unlock()
        }
        let watcherDone = DispatchSemaphore(value: 0)
        if concurrent {
            // Woken by the client hanging up; looks every 50 ms whether the answer went out meanwhile.
            Thread {
                defer { watcherDone.signal() }
                while !ended.happened {
                    var descriptor = pollfd(fd: connection, events: Self.peerHungUp, revents: 0)
                    if poll(&descriptor, 1, 50) > 0, descriptor.revents & (Self.peerHungUp | Int16(POLLHUP)) != 0 {
                        return leave(true)
                    }
                }
            }.start()
        } else {
            watcherDone.signal()
        }
        let response = handler(request)
        leave(false)
        // The watcher is done with the socket before it is written to and closed.
        watcherDone.wait()
        answerArrived.lock()
        answeredRequests.withLock { $0.append(request) }
        answerArrived.broadcast()
        answerArrived.unlock()
        guard !response.dropConnection else { return }
        let reason = response.status == 200 ? "OK" : "Error"
        let extra = response.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        var bytes = Data(
            ("HTTP/1.1 \(response.status) \(reason)\r\nContent-Type: \(response.contentType)\r\n"
                + "Content-Length: \(response.body.count)\r\n\(extra)Connection: close\r\n\r\n").utf8)
        bytes.append(response.body)
        bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = send(connection, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written <= 0 { return }
                sent += written
            }
        }
    }

    private func readRequest(_ connection: Int32) -> Request? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
        guard let headerEnd = buffer.range(of: separator) else { return nil }
        let head = String(decoding: buffer[..<headerEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Data(buffer[headerEnd.upperBound...])
        while body.count < length {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: chunk[0..<count])
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }
}

/// Something that happens once: the first caller of ``first()`` gets `true`.
final class Once: Sendable {
    private let done = Mutex(false)

    var happened: Bool { done.withLock { $0 } }

    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
