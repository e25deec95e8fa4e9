/// Strong entity tags and `304 Not Modified`: a successful GET without an `ETag` gets one over its body, and
/// a request whose `If-None-Match` names the current tag gets 304 without the body.
public struct ConditionalRequestMiddleware: HTTPMiddleware {
    public init() {}

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        // A body sent from a file (an export) is made afresh for each request: no tag over it.
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, response.file == nil
        else { return }
        let tag: String
        if let existing = response.header("ETag") {
            tag = existing
        } else {
            tag = Self.tag(for: response.body)
            response.headers.append(("ETag", tag))
        }
        guard let wanted = request.headers["if-none-match"], Self.matches(wanted, tag) else { return }
        response.status = 304
        response.body = .init()
        response.headers.removeAll {
            HTTPResponse.sameName($0.name, "Content-Type") || HTTPResponse.sameName($0.name, "Content-Length")
        }
    }

    /// A strong tag over the bytes: 64-bit FNV-1a, quoted.
    public static func tag(for body: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// `If-None-Match` uses weak comparison: `W/` is ignored, and so is the `-gzip` the compression layer
    /// adds to a tag, since the representation is the same before encoding.
    static func matches(_ header: String, _ tag: String) -> Bool {
        let current = opaque(tag)
        for candidate in header.split(separator: ",") {
            let trimmed = candidate.trimmingWhitespace()
            if trimmed == "*" || opaque(trimmed) == current { return true }
        }
        return false
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        var value = Substring(tag)
        if value.hasPrefix("W/") { value = value.dropFirst(2) }
        if value.hasSuffix("-gzip\"") { value = value.dropLast(6) + "\"" }
        return value
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        var value = Substring(self)
        while let first = value.first, first == " " || first == "\t" { value = value.dropFirst() }
        while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
        return value
    }
}
