import Foundation
import KuronekoHTTP
import Testing

/// The router's matching rules, including the trailing wildcard for static files.
@Suite("Router")
struct RouterTests {
    private static func router() -> Router {
        var router = Router()
        router.add("GET", "/v1/shipments/{number}") { _, _ in HTTPResponse(status: 200) }
        router.add("POST", "/v1/shipments/query") { _, _ in HTTPResponse(status: 200) }
        router.add("GET", "/app/{path...}") { _, _ in HTTPResponse(status: 200) }
        router.add("GET", "/app/index.html") { _, _ in HTTPResponse(status: 200) }
        return router
    }

    private static func found(_ match: Router.Match) -> (pattern: String, parameters: [String: String])? {
        if case .found(_, let parameters, let pattern) = match { return (pattern, parameters) }
        return nil
    }

    @Test("a trailing {name...} takes the rest of the path, one segment or more; an exact route wins")
    func wildcard() async throws {
        let router = Self.router()
        let deep = try #require(Self.found(router.match(method: "GET", path: "/app/icons/icon-192.png")))
        #expect(deep.pattern == "/app/{path...}" && deep.parameters["path"] == "icons/icon-192.png")
        let one = try #require(Self.found(router.match(method: "GET", path: "/app/app.js")))
        #expect(one.parameters["path"] == "app.js")
        #expect(Self.found(router.match(method: "GET", path: "/app/index.html"))?.pattern == "/app/index.html")
        if case .notFound = router.match(method: "GET", path: "/app") {} else { Issue.record("/app alone matched") }
        if case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/app/x") {
            #expect(allowed == ["GET"])
        } else {
            Issue.record("DELETE /app/x is not a 405")
        }
    }

    @Test("a literal segment beats a parameter")
    func literalFirst() {
        let router = Self.router()
        #expect(Self.found(router.match(method: "POST", path: "/v1/shipments/query"))?.pattern == "/v1/shipments/query")
        #expect(
            Self.found(router.match(method: "GET", path: "/v1/shipments/327754459830"))?.parameters["number"]
                == "327754459830")
    }
}
