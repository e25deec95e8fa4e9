/// Requests refused as soon as their headers are in, before any body is read: ambiguous framing (the ways
/// to smuggle a second request past a proxy), hidden bytes in the request line or the path, an HTTP/1.1
/// request without `Host`, and bodies declared too large.
enum RequestFraming {
    /// The answer that refuses the request, with `Connection: close`; `nil` when it may proceed.
    /// - Parameter headers: by lower-case name, the values of a repeated name joined with ", ".
    /// - Parameter path: the path's bytes, percent-decoded.
    /// - Parameter requestLineIntact: false when the request line held a NUL byte or another control
    ///   character (libmicrohttpd itself would cut the target at a NUL and carry on).
    /// - Parameter version: the request's HTTP version as sent, e.g. `HTTP/1.1`.
    static func refusal(
        headers: HTTPFields, path: some Sequence<UInt8>, maxBodyBytes: Int, requestLineIntact: Bool = true,
        version: String = "HTTP/1.1"
    ) -> HTTPResponse? {
        if !requestLineIntact {
            return closing(400, "the request line holds a NUL byte or a control character; send a plain request line")
        }
        if path.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return closing(400, "the path holds a control character (such as %00); remove it")
        }
        if version == "HTTP/1.1", headers["host"] == nil {
            return closing(400, "the HTTP/1.1 request has no Host header; send Host (RFC 9112, section 3.2)")
        }
        let lengths = headers["content-length"]?.split(separator: ",", omittingEmptySubsequences: false) ?? []
        let codings = headers["transfer-encoding"].map { [$0] } ?? []
        if lengths.count > 1 {
            return closing(400, "the request has \(lengths.count) Content-Length values; send exactly one")
        }
        if !codings.isEmpty {
            if !lengths.isEmpty {
                return closing(400, "the request has both Content-Length and Transfer-Encoding; send one of them")
            }
            let coding = codings.joined(separator: ",").lowercased().split(separator: ",").map {
                $0.trimmingWhitespace()
            }
            guard coding == ["chunked"] else {
                return closing(400, "the transfer coding is not supported; send the body as is or chunked")
            }
        }
        if let length = lengths.first {
            let digits = length.trimmingWhitespace()
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return closing(400, "Content-Length is not a number of bytes")
            }
            if digits.count > 18 || Int(digits) ?? Int.max > maxBodyBytes {
                return closing(
                    413, "the request body is larger than \(maxBodyBytes) bytes", title: "Content Too Large",
                    reason: "body_too_large")
            }
        }
        return nil
    }

    /// The body's length as the (already checked) framing fields declare it: 0 without a body, `nil` when it
    /// is chunked and its length is known only at its end.
    static func declaredLength(_ headers: HTTPFields) -> Int? {
        if headers["transfer-encoding"] != nil { return nil }
        return headers["content-length"].flatMap { Int($0.trimmingWhitespace()) } ?? 0
    }

    private static func closing(
        _ status: Int, _ detail: String, title: String = "Bad Request", reason: String? = nil
    ) -> HTTPResponse {
        var response = HTTPResponse.problem(status: status, title: title, detail: detail, reason: reason)
        response.headers.append(("Connection", "close"))
        response.route = "refused"
        return response
    }
}
