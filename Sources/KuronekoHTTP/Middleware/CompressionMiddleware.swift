import CZlib
import Foundation

/// gzip for clients that accept it, on bodies over a threshold whose type compresses (JSON, text); adds
/// `Vary: Accept-Encoding` to every response it could have compressed, and marks a strong `ETag` as the
/// gzip variant.
public struct CompressionMiddleware: HTTPMiddleware {
    /// Bodies at most this long are sent as they are.
    public let minimumBytes: Int

    public init(minimumBytes: Int = 1024) {
        self.minimumBytes = minimumBytes
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard response.body.count > minimumBytes else { return }
        var type: String?
        for (name, value) in response.headers {
            // Already encoded, or the responder chose its encoding itself (and said so in Vary).
            if HTTPResponse.sameName(name, "Content-Encoding") { return }
            if HTTPResponse.sameName(name, "Vary"), value.lowercased().contains("accept-encoding") { return }
            if type == nil, HTTPResponse.sameName(name, "Content-Type") { type = value }
        }
        guard let type, Self.compressible(type) else { return }
        response.headers.append(("Vary", "Accept-Encoding"))
        guard let accepted = request.headers["accept-encoding"], Self.acceptsGzip(accepted),
            let compressed = Self.gzip(response.body)
        else { return }
        response.body = compressed
        response.headers.append(("Content-Encoding", "gzip"))
        if let tag = response.header("ETag"), tag.hasSuffix("\""), !tag.hasPrefix("W/") {
            response.setHeader("ETag", String(tag.dropLast()) + "-gzip\"")
        }
    }

    static func compressible(_ type: String) -> Bool {
        type.hasPrefix("application/json") || type.hasPrefix("application/problem+json") || type.hasPrefix("text/")
            || type.hasPrefix("application/javascript")
    }

    /// Whether `Accept-Encoding` allows gzip (or `*`) with a non-zero quality.
    public static func acceptsGzip(_ header: String) -> Bool {
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingWhitespace() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
        return false
    }

    /// One gzip member, or `nil` if zlib fails.
    public static func gzip(_ data: Data, level: Int32 = 6) -> Data? {
        let capacity = kuroneko_gzip_bound(data.count)
        var output = Data(count: capacity)
        let written = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { buffer in
                kuroneko_gzip(input.baseAddress, input.count, buffer.baseAddress, capacity, level)
            }
        }
        guard written > 0 else { return nil }
        output.count = written
        return output
    }
}
