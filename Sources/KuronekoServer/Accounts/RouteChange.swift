import Foundation
import KuronekoHTTP
import KuronekoStore

/// What a route that changes something (and a read the audit log names, the CSV export) declares where it is
/// registered: the least role that may ask for it, and what the list's audit log says of it. The responder reads
/// the declaration of the route a request reaches: a caller whose role is below `needs` is refused before the
/// route runs; after a 2xx answer the ``Audit/entry(_:detail:)`` is recorded. A test walks the router: every
/// route that is not a read declares one.
public struct RouteChange: Sendable {
    /// The least role that may ask (a signed-in member's, or a member key's; a key made on the command line and
    /// the open API are their list's admin).
    public enum Needs: Int, Sendable, Comparable {
        /// No list yet (signing in, a customer's stop link, a lookup): nobody's role is asked.
        case anyone
        /// Every member: their own session, passkeys and channels.
        case viewer
        /// Staff and admins: the parcels.
        case staff
        /// Admins: the list's settings, keys and members.
        case admin

        public static func < (left: Needs, right: Needs) -> Bool { left.rawValue < right.rawValue }

        /// Whether a caller with `role` (`nil`: a command-line key or the open API, their list's admin) may ask.
        public func allows(_ role: ListRole?) -> Bool {
            switch role {
            case nil, .admin?: true
            case .staff?: self <= .staff
            case .viewer?: self <= .viewer
            }
        }
    }

    /// What the audit log says of the change.
    public enum Audit: Sendable {
        /// Recorded by the responder after a 2xx answer: the action, and its detail from what was asked and
        /// answered (`nil`: nothing worth a line, e.g. a list read as JSON rather than exported).
        case entry(String, detail: @Sendable (AuditedRequest) -> String?)
        /// Recorded by the route itself, which knows what it made (a key, an invitation), under this action.
        case byRoute(String)
        /// Not a change to a list: why no line is written.
        case none(String)
    }

    public let needs: Needs
    public let audit: Audit

    public init(needs: Needs, audit: Audit) {
        self.needs = needs
        self.audit = audit
    }

    /// A lookup sent as a POST (many numbers, the original app's form): it changes nothing.
    public static let lookup = RouteChange(needs: .anyone, audit: .none("a lookup changes nothing"))

    /// The refusal for a caller whose role is below what the route needs.
    static func refusal(_ needs: Needs, role: ListRole) -> HTTPResponse {
        let who = needs == .admin ? "an admin" : "staff or an admin"
        return RouteProblem(
            status: 403, title: "Forbidden", reason: .viewerOnly,
            detail: "only \(who) of the list can do this; you are \(role.rawValue) (ask its admin for the role)"
        ).response
    }
}

/// A request that succeeded, as an audit entry's detail reads it: the path's segments, the query, the body and
/// the answer, parsed once.
public struct AuditedRequest: Sendable {
    public let request: HTTPRequest
    public let response: HTTPResponse

    /// The path's last segment (a number, an id, a name).
    public var last: String { request.path.split(separator: "/").last.map(String.init) ?? "" }

    /// The body as a JSON object, if it is one.
    public var body: [String: Any]? { (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] }

    /// The answer as a JSON object, if it is one.
    public var answer: [String: Any]? { (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] }
}
