import CCurl
import Foundation
import Synchronization

/// The one outbound HTTP client: libcurl's easy interface, one handle per request on a thread of its own, no
/// cookies, no cache. Carrier pages, webhooks and every channel go through it. Every answer is bounded: a
/// declared `Content-Length` over ``maximumBodyBytes`` is refused before the body is read, and the body (as
/// decoded, after gzip or deflate) is abandoned inside the write callback the moment it passes that size, so a
/// small gzip answer that inflates to a gigabyte costs at most the cap. Redirects are never followed: a 3xx is
/// answered as it came. The request's timeout covers the whole exchange, from name resolution to the last
/// byte. A connection that breaks is a connection error, a request that runs out of time a timeout.
///
/// Proxies: ``ProxySettings`` (by default the process's `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`).
/// An ``AddressGuard`` is applied to the address actually connected to (libcurl's socket-open callback), so
/// a name that resolves elsewhere later cannot lead past it; through a proxy, the host's own addresses are
/// resolved and checked before the request is handed to the proxy.
public struct CurlTransport: HTTPTransport {
    /// The largest body read from the upstream, 2 MiB: Yamato's result page for ten numbers is about 30 KB.
    public static let defaultMaximumBodyBytes = 2 << 20

    public let maximumBodyBytes: Int
    /// A PEM file of the certificate authorities to trust instead of the system's (`--ca-file`); `nil` for
    /// the system's.
    public let caFile: String?
    public let proxy: ProxySettings
    public let addressGuard: AddressGuard?
    /// What the answers are, as a refusal names them: "a tracking page", "a receiver's answer".
    public let answerKind: String

    public init(
        maximumBodyBytes: Int = CurlTransport.defaultMaximumBodyBytes, caFile: String? = nil,
        proxy: ProxySettings = .from(), addressGuard: AddressGuard? = nil, answerKind: String = "a tracking page"
    ) {
        self.answerKind = answerKind
        self.maximumBodyBytes = maximumBodyBytes
        self.caFile = caFile
        self.proxy = proxy
        self.addressGuard = addressGuard
        CurlGlobal.initialise()
    }

    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let transfer = CurlTransfer(
            request: request, limit: maximumBodyBytes, caFile: caFile, proxy: proxy.proxy(for: request.url),
            addressGuard: addressGuard, answerKind: answerKind)
        let answer = OneAnswer<UpstreamResponse>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(with: continuation)
                // curl_easy_perform blocks: never on the cooperative pool.
                Thread.detachNewThread { answer.give(transfer.perform()) }
                // libcurl keeps the timeout itself; this only answers for a thread stuck where libcurl
                // cannot see (a name resolved before a proxied request), a second after the deadline.
                let seconds = (request.timeout / .seconds(1)).isFinite ? request.timeout / .seconds(1) : 86_400
                DispatchQueue.global().asyncAfter(deadline: .now() + min(86_400, max(0, seconds)) + 1) {
                    answer.give(
                        .failure(TransportError(.timeout, "\(request.url) did not answer within the request timeout")))
                }
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
    }
}

/// Decides whether an address may be connected to: `nil` when it may, else why not (one phrase, e.g.
/// "a private address (10.0.0.0/8)").
public struct AddressGuard: Sendable {
    public let refusal: @Sendable (sockaddr_storage) -> String?

    public init(refusal: @escaping @Sendable (sockaddr_storage) -> String?) {
        self.refusal = refusal
    }

    /// Every address `host` resolves to (for TCP), or `nil` when it resolves to none.
    public static func addresses(of host: String, port: Int) -> [sockaddr_storage]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port > 0 ? String(port) : nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [sockaddr_storage] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(
                        from: UnsafeRawBufferPointer(
                            start: address, count: min(Int(entry.pointee.ai_addrlen), target.count)))
                }
                addresses.append(storage)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? nil : addresses
    }
}

/// A continuation resumed by whichever comes first: the transfer's result or the deadline.
private final class OneAnswer<Value: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Value, any Error>?, early: Result<Value, any Error>?)>(
        (nil, nil))

    func wait(with continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func give(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            defer { state.continuation = nil }
            if state.continuation == nil, state.early == nil { state.early = result }
            return state.continuation
        }
        waiting?.resume(with: result)
    }
}

/// curl_global_init, once per process, before the first handle.
private enum CurlGlobal {
    private static let done: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    static func initialise() { _ = done }
}

/// One request's state, reached from libcurl's callbacks through an unretained pointer (the transfer
/// outlives `perform`, which is the only place callbacks run).
///
/// `@unchecked Sendable`: `body`, `headers` and `refusal` are touched only by the thread running
/// `perform` (libcurl calls back on it); `cancelled` is atomic.
private final class CurlTransfer: @unchecked Sendable {
    let request: UpstreamRequest
    let limit: Int
    let caFile: String?
    let proxy: String?
    let addressGuard: AddressGuard?
    let cancelled = Atomic<Bool>(false)
    var body = Data()
    var headers: [String: String] = [:]
    var refusal: TransportError?

    let answerKind: String

    init(
        request: UpstreamRequest, limit: Int, caFile: String?, proxy: String?, addressGuard: AddressGuard?,
        answerKind: String = "a tracking page"
    ) {
        self.answerKind = answerKind
        self.request = request
        self.limit = limit
        self.caFile = caFile
        self.proxy = proxy
        self.addressGuard = addressGuard
    }

    func perform() -> Result<UpstreamResponse, any Error> {
        if proxy != nil, let addressGuard, let refused = Self.checkThroughProxy(request.url, addressGuard) {
            return .failure(refused)
        }
        guard let handle = curl_easy_init() else {
            return .failure(TransportError(.other, "libcurl could not make a request handle"))
        }
        defer { curl_easy_cleanup(handle) }
        let url = request.url
        var fields: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers {
            fields = curl_slist_append(fields, "\(name): \(value)")
        }
        // libcurl adds `Expect: 100-continue` to larger bodies; the form is small, but never wait for it.
        fields = curl_slist_append(fields, "Expect:")
        defer { curl_slist_free_all(fields) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Clamped before the conversion: a timeout of any size (or not finite) must not trap.
        let requested = (request.timeout / .milliseconds(1)).rounded(.up)
        let milliseconds = requested.isFinite ? Int(min(max(1, requested), 86_400_000)) : 86_400_000
        // libcurl's own words for a failure (which certificate check failed, and why).
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorText.deallocate() }
        let result: CURLcode = url.absoluteString.withCString { address in
            request.method.withCString { method in
                request.body.withUnsafeBytes { body in
                    kuroneko_curl_set_pointer(handle, CURLOPT_URL, address)
                    kuroneko_curl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, method)
                    if request.method == "POST" || !request.body.isEmpty {
                        kuroneko_curl_set_long(handle, CURLOPT_POST, 1)
                        kuroneko_curl_set_pointer(
                            handle, CURLOPT_POSTFIELDS, body.baseAddress ?? UnsafeRawPointer(address))
                        kuroneko_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                    }
                    kuroneko_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(fields))
                    kuroneko_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                    kuroneko_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                    kuroneko_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
                    kuroneko_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
                    kuroneko_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
                    // "" offers every coding libcurl can decode (gzip, deflate) and decodes what comes.
                    kuroneko_curl_set_pointer(handle, CURLOPT_ACCEPT_ENCODING, "")
                    kuroneko_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                    if let caFile { kuroneko_curl_set_pointer(handle, CURLOPT_CAINFO, caFile) }
                    // Exactly the proxy chosen (or none: "" turns libcurl's own reading of the environment off).
                    kuroneko_curl_set_pointer(handle, CURLOPT_PROXY, proxy ?? "")
                    if proxy == nil, addressGuard != nil {
                        kuroneko_curl_set_open_socket(handle, curlOpenSocket, context)
                    }
                    kuroneko_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
                    kuroneko_curl_set_write(handle, curlReceivedBody, context)
                    kuroneko_curl_set_header(handle, curlReceivedHeader, context)
                    kuroneko_curl_set_progress(handle, curlProgress, context)
                    return curl_easy_perform(handle)
                }
            }
        }
        if let refusal { return .failure(refusal) }
        if result == CURLE_COULDNT_RESOLVE_PROXY || (proxy != nil && result == CURLE_COULDNT_CONNECT) {
            return .failure(
                TransportError(.connection, "cannot reach the proxy \(proxy ?? "") for \(url): \(Self.describe(result))"))
        }
        let detail = String(cString: errorText)
        switch result {
        case CURLE_OK:
            return .success(
                UpstreamResponse(status: kuroneko_curl_response_code(handle), headers: headers, body: body))
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(CancellationError())
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(TransportError(.timeout, "\(url) did not answer within the request timeout"))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(Self.tooLarge(url, limit: limit, "a body larger than that", kind: answerKind))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR,
            CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .failure(
                TransportError(.connection, "cannot reach \(url) or the connection broke: \(Self.describe(result))"))
        case CURLE_PEER_FAILED_VERIFICATION:
            return .failure(
                TransportError(
                    .connection,
                    "the certificate of \(url.host ?? "the host") was refused: \(Self.certificateProblem(detail)) "
                        + "(the TLS connection to \(url))"))
        case CURLE_SSL_CACERT_BADFILE:
            return .failure(
                TransportError(.connection, "the certificate authorities in \(caFile ?? "the CA file") could not be read"))
        case CURLE_SSL_CONNECT_ERROR:
            let reason = detail.isEmpty ? Self.describe(result) : detail
            return .failure(TransportError(.connection, "the TLS connection to \(url) was refused: \(reason)"))
        default:
            return .failure(TransportError(.other, "request to \(url) failed: \(Self.describe(result))"))
        }
    }

    /// Opens the socket libcurl asks for, unless the guard refuses the address (then nothing is connected).
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        var copy = sockaddr_storage()
        kuroneko_curl_address(address, &copy)
        if let addressGuard, let reason = addressGuard.refusal(copy) {
            refusal = TransportError(
                .refused, "\(request.url.host ?? "the host") leads to \(reason); nothing was sent to it")
            return CURL_SOCKET_BAD
        }
        let socket = Glibc.socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
        return socket >= 0 ? socket : CURL_SOCKET_BAD
    }

    /// Through a proxy, libcurl connects to the proxy only: the host's own addresses are resolved and
    /// checked here instead.
    static func checkThroughProxy(_ url: URL, _ addressGuard: AddressGuard) -> TransportError? {
        guard let host = url.host.map({ $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }) else {
            return TransportError(.other, "\(url) has no host")
        }
        guard let addresses = AddressGuard.addresses(of: host, port: url.port ?? 0) else {
            return TransportError(.connection, "\(host) does not resolve")
        }
        for address in addresses {
            if let reason = addressGuard.refusal(address) {
                return TransportError(.refused, "\(host) leads to \(reason); nothing was sent to it")
            }
        }
        return nil
    }

    /// libcurl's words for a refused certificate, said plainly: `hostname mismatch`, `unable to get local
    /// issuer certificate`, `certificate has expired`.
    static func certificateProblem(_ detail: String) -> String {
        if detail.contains("subject name") || detail.contains("does not match") {
            return "hostname mismatch (\(detail))"
        }
        let prefix = "SSL certificate problem: "
        return detail.hasPrefix(prefix) ? String(detail.dropFirst(prefix.count)) : (detail.isEmpty ? "not trusted" : detail)
    }

    static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    static func tooLarge(_ url: URL, limit: Int, _ what: String, kind: String) -> TransportError {
        TransportError(.bodyTooLarge, "\(url) answered \(what), more than the \(limit / 1024) KiB \(kind) may be; not read")
    }

    /// Takes one chunk of the decoded body; past the limit, stops the transfer (by taking nothing).
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            refusal = Self.tooLarge(request.url, limit: limit, "a body that decodes to more bytes", kind: answerKind)
            body = Data()
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one header line; a new status line (after a 1xx) starts the fields again.
    func receivedHeader(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if name == "content-length", let declared = Int(value), declared > limit {
            refusal = Self.tooLarge(request.url, limit: limit, "a body of \(declared) bytes", kind: answerKind)
        }
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }
}

private func curlReceivedBody(
    bytes: UnsafeMutablePointer<CChar>?, size: Int, count: Int, context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let total = size * count
    return transfer.received(UnsafeRawBufferPointer(start: bytes, count: total)) ? total : 0
}

private func curlReceivedHeader(
    bytes: UnsafeMutablePointer<CChar>?, size: Int, count: Int, context: UnsafeMutableRawPointer?
) -> Int {
    guard let context, let bytes else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let total = size * count
    transfer.receivedHeader(
        String(decoding: UnsafeRawBufferPointer(start: bytes, count: total), as: UTF8.self))
    // A declared length over the limit ends the transfer before any body is read.
    return transfer.refusal == nil ? total : 0
}

private func curlOpenSocket(
    context: UnsafeMutableRawPointer?, purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let context, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
}

private func curlProgress(
    context: UnsafeMutableRawPointer?, downloadTotal: curl_off_t, downloaded: curl_off_t, uploadTotal: curl_off_t,
    uploaded: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().cancelled.load(ordering: .relaxed)
        ? 1 : 0
}
