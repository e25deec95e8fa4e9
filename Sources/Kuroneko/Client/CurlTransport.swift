import CCurl
import Foundation
import Synchronization

/// The default transport: libcurl's easy interface, one handle per request on a thread of its own, no
/// cookies, no cache. Every answer is bounded: a declared `Content-Length` over ``maximumBodyBytes`` is
/// refused before the body is read, and the body (as decoded, after gzip or deflate) is abandoned inside the
/// write callback the moment it passes that size, so a small gzip answer that inflates to a gigabyte costs
/// at most the cap. Redirects are never followed: a 3xx is answered as it came (the tracking page does not
/// redirect, so one means the endpoint is wrong or something is in the way). A connection that breaks is a
/// connection error, a request that runs out of time a timeout.
public struct CurlTransport: HTTPTransport {
    /// The largest body read from the upstream, 2 MiB: Yamato's result page for ten numbers is about 30 KB.
    public static let defaultMaximumBodyBytes = 2 << 20

    public let maximumBodyBytes: Int
    /// A PEM file of the certificate authorities to trust instead of the system's (`--ca-file`); `nil` for
    /// the system's.
    public let caFile: String?

    public init(maximumBodyBytes: Int = CurlTransport.defaultMaximumBodyBytes, caFile: String? = nil) {
        self.maximumBodyBytes = maximumBodyBytes
        self.caFile = caFile
        CurlGlobal.initialise()
    }

    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let transfer = CurlTransfer(request: request, limit: maximumBodyBytes, caFile: caFile)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // curl_easy_perform blocks: never on the cooperative pool.
                Thread.detachNewThread { continuation.resume(with: transfer.perform()) }
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
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
    let cancelled = Atomic<Bool>(false)
    var body = Data()
    var headers: [String: String] = [:]
    var refusal: TransportError?

    init(request: UpstreamRequest, limit: Int, caFile: String?) {
        self.request = request
        self.limit = limit
        self.caFile = caFile
    }

    func perform() -> Result<UpstreamResponse, any Error> {
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
                    kuroneko_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
                    kuroneko_curl_set_write(handle, curlReceivedBody, context)
                    kuroneko_curl_set_header(handle, curlReceivedHeader, context)
                    kuroneko_curl_set_progress(handle, curlProgress, context)
                    return curl_easy_perform(handle)
                }
            }
        }
        if let refusal { return .failure(refusal) }
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
            return .failure(Self.tooLarge(url, limit: limit, "a body larger than that"))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR,
            CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .failure(
                TransportError(.connection, "cannot reach \(url) or the connection broke: \(Self.describe(result))"))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            let reason = detail.isEmpty ? Self.describe(result) : detail
            return .failure(TransportError(.connection, "the TLS connection to \(url) was refused: \(reason)"))
        default:
            return .failure(TransportError(.other, "request to \(url) failed: \(Self.describe(result))"))
        }
    }

    static func describe(_ code: CURLcode) -> String {
        curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    static func tooLarge(_ url: URL, limit: Int, _ what: String) -> TransportError {
        TransportError(
            .bodyTooLarge, "\(url) answered \(what), more than the \(limit / 1024) KiB a tracking page may be; not read"
        )
    }

    /// Takes one chunk of the decoded body; past the limit, stops the transfer (by taking nothing).
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            refusal = Self.tooLarge(request.url, limit: limit, "a body that decodes to more bytes")
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
            refusal = Self.tooLarge(request.url, limit: limit, "a body of \(declared) bytes")
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

private func curlProgress(
    context: UnsafeMutableRawPointer?, downloadTotal: curl_off_t, downloaded: curl_off_t, uploadTotal: curl_off_t,
    uploaded: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().cancelled.load(ordering: .relaxed)
        ? 1 : 0
}
