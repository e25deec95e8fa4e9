import Foundation
import KuronekoHTTP
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// Each route that changes something says so where it is registered: the least role that may ask, and what the
/// list's audit log records. Walked over the router the server answers with, so a new route cannot forget either.
@Suite("route declarations")
struct RouteDeclarationTests {
    @Test("every route that is not a read declares the role it needs and its audit entry; reads declare only to be audited")
    func everyChangeDeclares() async throws {
        let harness = await Harness()
        let routes = harness.api.application.routes
        #expect(routes.count > 40, "the whole API is walked: \(routes.count) routes")
        var changing = 0
        for route in routes where !["GET", "HEAD", "OPTIONS"].contains(route.method) {
            changing += 1
            let change = try #require(route.change, "\(route.method) \(route.pattern) declares neither its role nor its audit entry")
            switch change.audit {
            case .entry(let action, _), .byRoute(let action): #expect(!action.isEmpty, "\(route.pattern)")
            case .none(let reason): #expect(reason.count > 10, "\(route.method) \(route.pattern): say why no line is written")
            }
        }
        #expect(changing >= 29, "\(changing) routes change something")
        // A read that declares is one the audit log names (the CSV export).
        for route in routes where route.method == "GET" {
            if let change = route.change, case .entry = change.audit { continue }
            #expect(route.change == nil, "GET \(route.pattern) declares without an audit entry")
        }
    }

    @Test("the role a route declares is what is enforced: viewers read, staff change parcels, admins the list")
    func rolesFromDeclarations() {
        #expect(RouteChange.Needs.viewer.allows(.viewer) && !RouteChange.Needs.staff.allows(.viewer))
        #expect(RouteChange.Needs.staff.allows(.staff) && !RouteChange.Needs.admin.allows(.staff))
        #expect(RouteChange.Needs.admin.allows(.admin) && RouteChange.Needs.admin.allows(nil))
        #expect(RouteChange.Needs.anyone.allows(.viewer))
    }
}
