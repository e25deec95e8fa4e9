import CCrypto
import Foundation
import Kuroneko
import Synchronization

/// How one delivery attempt ended.
public struct DeliveryOutcome: Sendable, Equatable {
    /// The receiver's HTTP status, when it answered.
    public let status: Int?
    /// Why there was no 2xx answer, in one line.
    public let error: String?
    /// The answer's `Retry-After`, in seconds, when it gave one (a 429 or 503).
    public var retryAfter: TimeInterval?

    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }

    public init(status: Int?, error: String?, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.error = error
        self.retryAfter = retryAfter
    }
}

/// Sends one signed webhook body. A protocol, so the outbox can be tested without sockets.
public protocol WebhookSender: Sendable {
    func send(_ body: Data, signature: String, to url: String) async -> DeliveryOutcome
}

/// The real sender: resolves the host, refuses a private address (checked again here, on the address
/// actually connected to, so a name that resolved to a public address when the webhook was added cannot
/// lead elsewhere now), connects with a 10 s limit for the whole attempt, speaks HTTP/1.1 (over TLS with
/// certificate and host name checks for https), and never follows a redirect.
public struct SocketWebhookSender: WebhookSender {
    public let allowPrivate: Bool
    public let timeout: TimeInterval
    /// A PEM file of the certificate authorities to trust instead of the system's (`--ca-file`).
    public let caFile: String?

    public init(allowPrivate: Bool, timeout: TimeInterval = 10, caFile: String? = nil) {
        self.allowPrivate = allowPrivate
        self.timeout = timeout
        self.caFile = caFile
    }

    public func send(_ body: Data, signature: String, to url: String) async -> DeliveryOutcome {
        await post(
            body, headers: ["Content-Type": "application/json", WebhookPayload.signatureHeader: signature], to: url)
    }

    /// Blocking socket work on a thread of its own, never on the cooperative pool.
    func post(_ body: Data, headers: [String: String], to url: String) async -> DeliveryOutcome {
        let (allowPrivate, timeout, caFile) = (self.allowPrivate, self.timeout, self.caFile)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Self.deliver(
                        body, headers: headers, to: url, allowPrivate: allowPrivate, timeout: timeout, caFile: caFile))
            }
        }
    }

    /// One POST of `body` with `headers` (names and values without line breaks), within `timeout` for the
    /// whole attempt.
    static func deliver(
        _ body: Data, headers: [String: String], to url: String, allowPrivate: Bool, timeout: TimeInterval,
        caFile: String? = nil
    ) -> DeliveryOutcome {
        let address: WebhookAddress
        let candidates: [sockaddr_storage]
        do {
            address = try WebhookAddress(url)
            candidates = try address.resolve(allowPrivate: allowPrivate)
        } catch {
            return DeliveryOutcome(status: nil, error: error.description)
        }
        let deadline = Date().addingTimeInterval(timeout)
        guard let socket = connect(to: candidates, until: deadline) else {
            return DeliveryOutcome(status: nil, error: "could not connect to \(address.host):\(address.port) in time")
        }
        defer { close(socket) }
        // One deadline for the whole attempt: when it passes, the socket is shut down, which ends any read,
        // write or TLS handshake at once, however slowly the receiver trickles its bytes.
        let watchdog = SocketWatchdog(socket: socket, deadline: deadline)
        defer { watchdog.finish() }
        let outcome = exchange(
            body, headers: headers, address: address, socket: socket, timeout: timeout, caFile: caFile)
        if watchdog.fired {
            return DeliveryOutcome(
                status: nil,
                error:
                    "\(address.host) did not take the delivery and answer within \(Int(timeout)) s (the whole attempt's limit)"
            )
        }
        return outcome
    }

    /// Sends the request and reads the status line, on a connected socket.
    private static func exchange(
        _ body: Data, headers: [String: String], address: WebhookAddress, socket: Int32, timeout: TimeInterval,
        caFile: String?
    ) -> DeliveryOutcome {
        var seconds = timeval(tv_sec: max(1, Int(timeout.rounded(.up))), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        let hostHeader =
            (address.host.contains(":") ? "[\(address.host)]" : address.host)
            + ((address.secure && address.port == 443) || (!address.secure && address.port == 80)
                ? "" : ":\(address.port)")
        let extra = headers.sorted { $0.key < $1.key }.map { name, value in
            "\(name): \(value.filter { $0 != "\r" && $0 != "\n" })\r\n"
        }.joined()
        var request = Data(
            ("POST \(address.target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: Kuroneko-Webhook/\(KuronekoVersion.version)\r\n"
                + "Content-Length: \(body.count)\r\n" + extra + "Connection: close\r\n\r\n").utf8)
        request.append(body)
        let channel: any ByteChannel
        if address.secure {
            switch TLSChannel.open(socket: socket, host: address.host, caFile: caFile) {
            case .success(let tls): channel = tls
            case .failure(let refusal): return DeliveryOutcome(status: nil, error: refusal.message)
            }
        } else {
            channel = PlainChannel(socket: socket)
        }
        guard channel.write(request) else {
            return DeliveryOutcome(status: nil, error: "the connection to \(address.host) broke while sending")
        }
        guard let head = channel.readHead(limit: 16_384), let statusLine = head.first else {
            return DeliveryOutcome(status: nil, error: "\(address.host) sent no HTTP answer within \(Int(timeout)) s")
        }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status)
        else {
            return DeliveryOutcome(status: nil, error: "\(address.host) answered something that is not HTTP")
        }
        if (200..<300).contains(status) { return DeliveryOutcome(status: status, error: nil) }
        let reason = (300..<400).contains(status) ? "a redirect, which is not followed" : "not a 2xx status"
        // Retry-After in seconds (an HTTP date is read as no advice), at most a day.
        let retryAfter = head.dropFirst().lazy.compactMap { line -> TimeInterval? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "retry-after",
                let seconds = Int(parts[1].trimmingCharacters(in: .whitespaces)), (0...86_400).contains(seconds)
            else { return nil }
            return TimeInterval(seconds)
        }.first
        return DeliveryOutcome(
            status: status, error: "\(address.host) answered HTTP \(status), \(reason)", retryAfter: retryAfter)
    }

    /// Connects to the first address that accepts before the deadline.
    private static func connect(to addresses: [sockaddr_storage], until deadline: Date) -> Int32? {
        for var address in addresses {
            let family = Int32(address.ss_family)
            let socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { continue }
            let flags = fcntl(socket, F_GETFL)
            _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, length) }
            }
            if result == 0 || errno == EINPROGRESS {
                var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                let wait = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
                var failure: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                if result == 0
                    || (poll(&entry, 1, wait) == 1 && getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &size) == 0
                        && failure == 0)
                {
                    _ = fcntl(socket, F_SETFL, flags)
                    return socket
                }
            }
            close(socket)
        }
        return nil
    }
}

/// Shuts a socket down when a deadline passes, unless the attempt finished first. The socket is closed only
/// after ``finish()``, so a late timer never touches a descriptor that was closed and reused.
final class SocketWatchdog: Sendable {
    private let state: Mutex<(finished: Bool, fired: Bool)> = Mutex((false, false))

    init(socket: Int32, deadline: Date) {
        let delay = max(0, deadline.timeIntervalSinceNow)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            state.withLock { state in
                guard !state.finished else { return }
                state.fired = true
                Glibc.shutdown(socket, Int32(SHUT_RDWR))
            }
        }
    }

    /// Whether the deadline passed and the socket was shut down.
    var fired: Bool { state.withLock { $0.fired } }

    func finish() { state.withLock { $0.finished = true } }
}

/// Bytes to and from the receiver, in the clear or over TLS.
protocol ByteChannel {
    func write(_ data: Data) -> Bool
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

extension ByteChannel {
    /// The answer's status line and header lines (up to the blank line, or as many as `limit` bytes hold).
    func readHead(limit: Int) -> [String]? {
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 1_024)
        let end = Data("\r\n\r\n".utf8)
        while received.count < limit, received.range(of: end) == nil {
            let count = chunk.withUnsafeMutableBytes { read(into: $0) }
            guard count > 0 else { break }
            received.append(contentsOf: chunk[0..<count])
        }
        guard received.contains(UInt8(ascii: "\n")) else { return nil }
        let head = received.range(of: end).map { received[..<$0.lowerBound] } ?? received
        return String(decoding: head, as: UTF8.self).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

struct PlainChannel: ByteChannel {
    let socket: Int32

    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = send(socket, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        recv(socket, buffer.baseAddress, buffer.count, 0)
    }
}

/// Why a TLS connection was not made, in one line naming the host and the cause.
struct TLSRefusal: Error {
    let message: String
}

/// TLS over a connected socket: the system's certificate authorities (or `--ca-file`'s), the host name
/// checked.
final class TLSChannel: ByteChannel {
    private let context: OpaquePointer
    private let connection: OpaquePointer

    private init(context: OpaquePointer, connection: OpaquePointer) {
        self.context = context
        self.connection = connection
    }

    /// The handshake on `socket` with `host`; a refusal says which check failed (OpenSSL's words).
    static func open(socket: Int32, host: String, caFile: String?) -> Result<TLSChannel, TLSRefusal> {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            return .failure(TLSRefusal(message: "TLS with \(host) could not be set up (OpenSSL made no context)"))
        }
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                SSL_CTX_free(context)
                return .failure(TLSRefusal(message: "the certificate authorities in \(caFile) could not be read"))
            }
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard let connection = SSL_new(context) else {
            SSL_CTX_free(context)
            return .failure(TLSRefusal(message: "TLS with \(host) could not be set up (OpenSSL made no connection)"))
        }
        // From here the channel owns both, and frees them however the handshake ends.
        let channel = TLSChannel(context: context, connection: connection)
        ERR_clear_error()
        SSL_set_fd(connection, socket)
        _ = kuroneko_ssl_set_server_name(connection, host)
        SSL_set1_host(connection, host)
        let connected = SSL_connect(connection) == 1
        let verdict = SSL_get_verify_result(connection)
        if verdict != X509_V_OK {
            let reason = X509_verify_cert_error_string(verdict).map { String(cString: $0) } ?? "error \(verdict)"
            return .failure(TLSRefusal(message: "the certificate of \(host) was refused: \(reason)"))
        }
        guard connected else {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(ERR_get_error(), &text, text.count)
            return .failure(
                TLSRefusal(message: "the TLS handshake with \(host) failed: \(String(cString: text))"))
        }
        return .success(channel)
    }

    deinit {
        SSL_shutdown(connection)
        SSL_free(connection)
        SSL_CTX_free(context)
    }

    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = SSL_write(connection, buffer.baseAddress! + sent, Int32(buffer.count - sent))
                if written <= 0 { return false }
                sent += Int(written)
            }
            return true
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        Int(SSL_read(connection, buffer.baseAddress, Int32(buffer.count)))
    }
}

/// Sends one channel request (a POST with its own headers) through the same guarded sockets as webhooks.
public protocol ChannelSender: Sendable {
    func send(_ request: ChannelRequest) async -> DeliveryOutcome
}

extension SocketWebhookSender: ChannelSender {
    public func send(_ request: ChannelRequest) async -> DeliveryOutcome {
        await post(request.body, headers: request.headers, to: request.url.absoluteString)
    }
}
