/// Behind a reverse proxy the operator names (`--trusted-proxy`), the client is the address that proxy put last in
/// `X-Forwarded-For` (the one it saw connect); from any other connection the header is ignored, so nobody can
/// choose their address by sending it.
public struct ForwardedClientMiddleware: HTTPMiddleware {
    let trusted: Set<UInt64>

    /// - Parameter trustedProxies: the proxies' addresses, as ``ClientAddress/key(_:)`` names them.
    public init(trustedProxies: Set<UInt64>) {
        trusted = trustedProxies
    }

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        guard trusted.contains(request.client), let forwarded = request.headers["x-forwarded-for"],
            let last = forwarded.split(separator: ",").last, let client = ClientAddress.key(String(last))
        else { return nil }
        request.client = client
        return nil
    }
}
