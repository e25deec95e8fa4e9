import Foundation

/// The plain-http port beside an https server (`--http-redirect-port`): every request is answered 308 with
/// the same path and query on https, at the host the client asked for (its `Host` header, when that is a
/// plain host name or address) and the https port. Nothing else is served there.
public struct HTTPSRedirect: HTTPApplication {
    public let httpsPort: UInt16
    /// The host used when the request names none usable.
    public let fallbackHost: String

    public init(httpsPort: UInt16, fallbackHost: String) {
        self.httpsPort = httpsPort
        self.fallbackHost = fallbackHost
    }

    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        let host = Self.host(request.header("host")) ?? fallbackHost
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
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
        response.headers.append(("Location", "https://\(host)\(port)\(target)"))
        response.headers.append(("Cache-Control", "no-store"))
        return .now(response)
    }

    /// The host part of a `Host` header when it is a name, an IPv4 address or a bracketed IPv6 address.
    static func host(_ header: String?) -> String? {
        guard let header, !header.isEmpty, header.count <= 255 else { return nil }
        let host: Substring
        if header.hasPrefix("[") {
            guard let end = header.firstIndex(of: "]") else { return nil }
            host = header[...end]
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            host = header.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard !host.isEmpty,
                host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." })
            else { return nil }
        }
        return String(host)
    }
}
