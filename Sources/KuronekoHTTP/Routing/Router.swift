/// Finds the handler for a method and path; path patterns are literal segments and `{name}` parameters.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, _ parameters: [String: String]) async -> HTTPResponse

    private struct Route {
        let method: String
        let segments: [Substring]
        let handler: Handler

        var literalCount: Int { segments.filter { !$0.hasPrefix("{") }.count }
    }

    private var entries: [Route] = []

    public init() {}

    /// Adds a route, e.g. `add("GET", "/v1/shipments/{number}") { request, parameters in … }`.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        entries.append(Route(method: method, segments: pattern.split(separator: "/"), handler: handler))
    }

    /// What a request resolves to.
    public enum Match {
        case found(Handler, parameters: [String: String], pattern: String)
        /// The path exists, but not for this method: 405 with these methods in `Allow`.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    /// Every route, as method and pattern, in the order added.
    public var routes: [(method: String, pattern: String)] {
        entries.map { ($0.method, "/" + $0.segments.joined(separator: "/")) }
    }

    public func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/")
        // A literal segment beats a parameter: /v1/shipments/query is not /v1/shipments/{number}.
        let candidates = entries.compactMap { route in
            Self.bind(route.segments, to: segments).map { (route: route, parameters: $0) }
        }
        let mostLiteral = candidates.map { $0.route.literalCount }.max() ?? 0
        var allowed: [String] = []
        for (route, parameters) in candidates where route.literalCount == mostLiteral {
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(
                    route.handler, parameters: parameters, pattern: "/" + route.segments.joined(separator: "/"))
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func bind(_ pattern: [Substring], to segments: [Substring]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{"), expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }

    /// Routes a request; unknown paths and methods get problem documents.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch match(method: request.method, path: request.path) {
        case .found(let handler, let parameters, _):
            return await handler(request, parameters)
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.problem(
                status: 405, title: "Method Not Allowed",
                detail: "\(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: " or "))")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return response
        case .notFound:
            return .problem(status: 404, title: "Not Found", detail: "no such resource: \(request.path)")
        }
    }
}
