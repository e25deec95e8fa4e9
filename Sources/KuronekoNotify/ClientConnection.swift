import CCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a connection to a server failed, in one line naming the server.
struct ConnectionError: Error, CustomStringConvertible {
    let description: String
}

/// One TCP connection to a server (an IMAP server, an MQTT broker), with TLS from OpenSSL (from the start, or
/// after the protocol's STARTTLS); the certificate checked against the system's authorities (or `caFile`) and
/// the host's name or address. Every read and write waits at most `timeout`; a peer that stops sending is an
/// error, never a hang. Owns its socket and OpenSSL objects and frees them; blocking: used from a thread of its
/// own. After ``makeNonBlocking()``, ``readAvailable(upTo:)`` answers at once (a writer never waits on a reader).
final class ClientConnection {
    private let host: String
    private let timeout: Double
    private var descriptor: Int32 = -1
    private var context: OpaquePointer?
    private var ssl: OpaquePointer?
    private var nonBlocking = false

    /// Connects (within `timeout`), and for `tls` makes the TLS handshake at once.
    init(host: String, port: Int, timeout: Double, tls: Bool, caFile: String?) throws(ConnectionError) {
        self.host = host
        // Bounded both ways: poll(2) takes the wait in milliseconds as an Int32.
        self.timeout = min(max(0.1, timeout.isFinite ? timeout : 60), 3_600)
        descriptor = try Self.connect(host: host, port: port, timeout: self.timeout)
        if tls { try startTLS(caFile: caFile) }
    }

    deinit {
        if let ssl {
            SSL_shutdown(ssl)
            SSL_free(ssl)
        }
        if let context { SSL_CTX_free(context) }
        if descriptor >= 0 { close(descriptor) }
    }

    /// The TLS handshake on the connection as it stands (after STARTTLS's OK, or at once).
    func startTLS(caFile: String?) throws(ConnectionError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw fail("OpenSSL could not make a TLS context") }
        self.context = context
        kuroneko_ssl_require_tls12(context)
        // A write that found no room is retried with its bytes where they are then (non-blocking mode).
        SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded =
            caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else { throw fail("the certificate authorities \(caFile ?? "of the system") could not be read") }
        guard let ssl = SSL_new(context) else { throw fail("OpenSSL could not make a TLS session") }
        self.ssl = ssl
        let parameters = SSL_get0_param(ssl)
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if Self.isAddress(bare) {
            X509_VERIFY_PARAM_set1_ip_asc(parameters, bare)
        } else {
            X509_VERIFY_PARAM_set1_host(parameters, bare, 0)
            kuroneko_ssl_set_server_name(ssl, bare)
        }
        SSL_set_fd(ssl, descriptor)
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let reason = X509_verify_cert_error_string(Int(verify)).map { String(cString: $0) } ?? "not trusted"
                throw fail("the server's certificate is refused: \(reason)")
            }
            throw fail("the TLS handshake failed: \(Self.openSSLError())")
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: Data) throws(ConnectionError) {
        var offset = 0
        while offset < bytes.count {
            let written: Int = bytes.withUnsafeBytes { raw in
                let start = raw.baseAddress! + offset
                if let ssl { return Int(SSL_write(ssl, start, Int32(min(raw.count - offset, 1 << 20)))) }
                return Glibc.send(descriptor, start, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else {
                guard nonBlocking else { throw fail("the connection was lost while writing") }
                try waitForRoom(written)
                continue
            }
            offset += written
        }
    }

    /// Up to `count` bytes, waiting at most the timeout for the first. - Throws: when the peer closes or is silent.
    func read(upTo count: Int) throws(ConnectionError) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        if ssl == nil || SSL_pending(ssl) == 0 {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let waited = poll(&ready, 1, Int32(timeout * 1_000))
            guard waited > 0 else { throw fail("the server sent nothing for \(Int(timeout)) s") }
        }
        let got: Int = buffer.withUnsafeMutableBytes { raw in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(count))) }
            return recv(descriptor, raw.baseAddress, count, 0)
        }
        guard got > 0 else { throw fail("the server closed the connection") }
        return Data(buffer[0..<got])
    }

    /// The socket, for a caller that polls it with another descriptor.
    var socket: Int32 { descriptor }

    /// Whether TLS holds bytes already read from the socket (a poll of the socket would not show them).
    var hasBufferedInput: Bool { ssl.map { SSL_pending($0) > 0 } ?? false }

    /// Makes reads that find nothing return at once, and writes wait (at most the timeout) only for room.
    func makeNonBlocking() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        nonBlocking = true
    }

    /// What the peer has sent, up to `count` bytes; `nil` when nothing is there now (non-blocking mode).
    /// - Throws: when the peer closed the connection or it failed.
    func readAvailable(upTo count: Int) throws(ConnectionError) -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        let got: Int = buffer.withUnsafeMutableBytes { raw in
            if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(count))) }
            return recv(descriptor, raw.baseAddress, count, 0)
        }
        if got > 0 { return Data(buffer[0..<got]) }
        if let ssl {
            let error = SSL_get_error(ssl, Int32(got))
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return nil }
        } else if got < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            return nil
        }
        throw fail("the server closed the connection")
    }

    /// In non-blocking mode: waits (at most the timeout) until the socket can take more, or has input TLS needs.
    private func waitForRoom(_ written: Int) throws(ConnectionError) {
        var events = Int16(POLLOUT)
        if let ssl {
            let error = SSL_get_error(ssl, Int32(written))
            guard error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ else {
                throw fail("the connection was lost while writing")
            }
            if error == SSL_ERROR_WANT_READ { events = Int16(POLLIN) }
        } else {
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw fail("the connection was lost while writing")
            }
        }
        var ready = pollfd(fd: descriptor, events: events, revents: 0)
        guard poll(&ready, 1, Int32(timeout * 1_000)) > 0 else {
            throw fail("the server took nothing for \(Int(timeout)) s")
        }
    }

    private func fail(_ reason: String) -> ConnectionError {
        ConnectionError(description: "\(host): \(reason)")
    }

    private static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func openSSLError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "the connection was closed" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A TCP connection to the first address of `host` that answers within `timeout`.
    private static func connect(host: String, port: Int, timeout: Double) throws(ConnectionError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare, String(port), &hints, &found) == 0, let first = found else {
            throw ConnectionError(description: "\(host): the name does not resolve")
        }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        var refused = false
        while let address = entry {
            entry = address.pointee.ai_next
            let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
            guard socket >= 0 else { continue }
            let flags = fcntl(socket, F_GETFL)
            _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
            let started = Glibc.connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen)
            var error: Int32 = started == 0 ? 0 : errno
            if error == EINPROGRESS {
                var ready = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                var length = socklen_t(MemoryLayout<Int32>.size)
                if poll(&ready, 1, Int32(timeout * 1_000)) <= 0 || getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) != 0 {
                    error = ETIMEDOUT
                }
            }
            if error == 0 {
                _ = fcntl(socket, F_SETFL, flags)
                return socket
            }
            refused = refused || error == ECONNREFUSED
            close(socket)
        }
        if refused { throw ConnectionError(description: "\(host):\(port) refused the connection (is the server running there?)") }
        throw ConnectionError(description: "\(host):\(port) could not be reached within \(Int(timeout)) s")
    }
}
