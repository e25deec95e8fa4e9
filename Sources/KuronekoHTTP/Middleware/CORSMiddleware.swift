/// Cross-origin requests for the origins configured (`*` for any): preflight `OPTIONS` answered 204 with
/// the allowed methods and headers, and `Access-Control-Allow-Origin` on every answer to an allowed origin.
/// The preflight allows every method the API has and every request header it reads, `Authorization`
/// included, so a page on another origin can use keys and delete watches.
public struct CORSMiddleware: HTTPMiddleware {
    private let origins: Set<String>
    private let anyOrigin: Bool
    static let allowedMethods = "GET, HEAD, POST, DELETE, OPTIONS"
    static let allowedHeaders = "Authorization, Content-Type, If-None-Match, X-Request-ID"
    static let exposedHeaders = "ETag, Age, X-Cache, X-Request-ID, Retry-After"

    /// - Parameter origins: exact origins (`https://shop.example`), or `*`.
    public init(origins: [String]) {
        anyOrigin = origins.contains("*")
        self.origins = Set(origins.filter { $0 != "*" })
    }

    private func allowedOrigin(_ request: HTTPRequest) -> String? {
        guard let origin = request.headers["origin"] else { return nil }
        if anyOrigin { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["access-control-request-method"] != nil,
            let origin = allowedOrigin(request)
        else { return nil }
        return HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Methods", Self.allowedMethods),
                ("Access-Control-Allow-Headers", Self.allowedHeaders), ("Access-Control-Max-Age", "600"),
                ("Vary", "Origin"),
            ],
            route: "preflight")
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        guard let origin = allowedOrigin(request), response.header("Access-Control-Allow-Origin") == nil else {
            return
        }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
        if origin != "*" { response.headers.append(("Vary", "Origin")) }
    }
}
