import Foundation
import KuronekoHTTP

/// One file of the web app as it is served: its bytes, a gzip copy when that is smaller, and a strong tag.
public struct WebAsset: Sendable {
    public let path: String
    public let contentType: String
    public let body: Data
    public let gzipped: Data?
    public let etag: String

    init(path: String, body: Data) {
        self.path = path
        self.body = body
        contentType = Self.contentType(forPath: path)
        etag = ConditionalRequestMiddleware.tag(for: body)
        let compressed = Self.compresses(contentType) ? CompressionMiddleware.gzip(body, level: 9) : nil
        gzipped = compressed.flatMap { $0.count < body.count ? $0 : nil }
    }

    /// The type by the file's extension; anything unknown is sent as bytes.
    static func contentType(forPath path: String) -> String {
        switch path.split(separator: ".").last ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "webmanifest": "application/manifest+json"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    private static func compresses(_ type: String) -> Bool {
        type.hasPrefix("text/") || type.hasPrefix("image/svg") || type.hasPrefix("application/manifest")
            || type.hasPrefix("application/json")
    }

    /// The response for a GET or HEAD: gzip when the client takes it, `Vary` whenever there is a gzip copy.
    func response(to request: HTTPRequest, cacheControl: String, extraHeaders: [(String, String)]) -> HTTPResponse {
        var response = HTTPResponse.content(body, type: contentType)
        response.headers.append(("Cache-Control", cacheControl))
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers.append(contentsOf: extraHeaders.map { (name: $0.0, value: $0.1) })
        guard let gzipped else {
            response.headers.append(("ETag", etag))
            return response
        }
        response.headers.append(("Vary", "Accept-Encoding"))
        if let accepted = request.headers["accept-encoding"], CompressionMiddleware.acceptsGzip(accepted) {
            response.body = gzipped
            response.headers.append(("Content-Encoding", "gzip"))
            response.headers.append(("ETag", String(etag.dropLast()) + "-gzip\""))
        } else {
            response.headers.append(("ETag", etag))
        }
        return response
    }
}
