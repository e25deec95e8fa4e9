/// Finds the handler for a method and path; path patterns are literal segments, `{name}` parameters, and a
/// last `{name...}` segment that takes the rest of the path (one segment or more, joined with `/`), for
/// static files. A route with more literal segments wins; between equals, one without a trailing wildcard.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, _ parameters: [String: String]) async -> HTTPResponse

    private struct Route {
        let method: String
        let segments: [Substring]
        let handler: Handler
        /// What the route declared where it was registered (the server's: the role it needs, its audit action).
        let declaration: (any Sendable)?

        var literalCount: Int { segments.filter { !$0.hasPrefix("{") }.count }
        var hasWildcard: Bool { segments.last.map(Router.isWildcard) ?? false }
    }

    private var entries: [Route] = []

    public init() {}

    /// Adds a route, e.g. `add("GET", "/v1/shipments/{number}") { request, parameters in … }`; `declares` is kept
    /// with it for the layers around the router (``declaration(method:path:)``, ``routes``).
    public mutating func add(
        _ method: String, _ pattern: String, declares declaration: (any Sendable)? = nil,
        _ handler: @escaping Handler
    ) {
        entries.append(
            Route(method: method, segments: pattern.split(separator: "/"), handler: handler, declaration: declaration))
    }

    /// What a request resolves to.
    public enum Match {
        case found(Handler, parameters: [String: String], pattern: String)
        /// The path exists, but not for this method: 405 with these methods in `Allow`.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    /// Every route, as method, pattern and declaration, in the order added.
    public var routes: [(method: String, pattern: String, declaration: (any Sendable)?)] {
        entries.map { ($0.method, "/" + $0.segments.joined(separator: "/"), $0.declaration) }
    }

    /// What the route a request would reach declared, if anything.
    public func declaration(method: String, path: String) -> (any Sendable)? {
        best(method: method, path: path).route?.declaration
    }

    public func match(method: String, path: String) -> Match {
        let found = best(method: method, path: path)
        if let route = found.route {
            return .found(
                route.handler, parameters: found.parameters, pattern: "/" + route.segments.joined(separator: "/"))
        }
        return found.allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: found.allowed)
    }

    /// The route for the method and path, or the methods the path allows.
    private func best(method: String, path: String) -> (route: Route?, parameters: [String: String], allowed: [String]) {
        let segments = path.split(separator: "/")
        // A literal segment beats a parameter: /v1/shipments/query is not /v1/shipments/{number}.
        let candidates = entries.compactMap { route in
            Self.bind(route.segments, to: segments).map { (route: route, parameters: $0) }
        }
        let mostLiteral = candidates.map { $0.route.literalCount }.max() ?? 0
        let best = candidates.filter { $0.route.literalCount == mostLiteral }
        let exact = best.filter { !$0.route.hasWildcard }
        var allowed: [String] = []
        for (route, parameters) in exact.isEmpty ? best : exact {
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return (route, parameters, [])
            }
            allowed.append(route.method)
        }
        return (nil, [:], allowed)
    }

    static func isWildcard(_ segment: Substring) -> Bool {
        segment.hasPrefix("{") && segment.hasSuffix("...}")
    }

    private static func bind(_ pattern: [Substring], to segments: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        if let last = pattern.last, isWildcard(last) {
            guard segments.count >= pattern.count else { return nil }
            let rest = segments[(pattern.count - 1)...].joined(separator: "/")
            guard let fixed = bind(Array(pattern.dropLast()), to: Array(segments.prefix(pattern.count - 1))) else {
                return nil
            }
            parameters = fixed
            parameters[String(last.dropFirst().dropLast(4))] = rest
            return parameters
        }
        guard pattern.count == segments.count else { return nil }
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{"), expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }

    /// Routes a request; unknown paths and methods get problem documents, `OPTIONS` gets 204 with `Allow`.
    /// The response carries the matched pattern in ``HTTPResponse/route``.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch match(method: request.method, path: request.path) {
        case .found(let handler, let parameters, let pattern):
            var response = await handler(request, parameters)
            response.route = pattern
            return response
        case .methodNotAllowed(let allowed):
            return Self.notAllowed(request, allowed: allowed)
        case .notFound:
            return .problem(status: 404, title: "Not Found", detail: "no such resource: \(request.path)")
        }
    }

    /// 204 with `Allow` for `OPTIONS`, else 405 naming the methods the path has.
    static func notAllowed(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        var methods = allowed
        if methods.contains("GET") { methods.append("HEAD") }
        methods.append("OPTIONS")
        let allow = methods.joined(separator: ", ")
        if request.method == "OPTIONS" {
            return HTTPResponse(status: 204, headers: [("Allow", allow)], route: "options")
        }
        var response = HTTPResponse.problem(
            status: 405, title: "Method Not Allowed",
            detail: "\(HTTPMethod.label(request.method)) is not allowed on this resource; use "
                + allowed.joined(separator: " or "))
        response.headers.append(("Allow", allow))
        return response
    }
}
