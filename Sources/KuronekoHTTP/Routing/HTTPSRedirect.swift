import Foundation

/// The plain-http port beside an https server (`--http-redirect-port`): every request is answered 308 with
/// the same path and query under one fixed https origin (`--public-url`, else the address listened on). The
/// request's `Host` header is never used: a redirect built from it would send a client wherever the request
/// said. Nothing else is served there.
public struct HTTPSRedirect: HTTPApplication {
    /// `https://host[:port]`, without a path.
    public let origin: String

    public init(origin: String) {
        self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }

    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        let path = request.path.hasPrefix("/") ? request.path : "/"
        var target = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "/"
        if !request.query.isEmpty {
            target += "?" + request.query.map { item in
                (item.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                    + (item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
            }.joined(separator: "&")
        }
        var response = HTTPResponse(status: 308)
        response.headers.append(("Location", origin + target))
        response.headers.append(("Cache-Control", "no-store"))
        return .now(response)
    }
}
