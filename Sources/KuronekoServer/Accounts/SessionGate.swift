import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore

/// Signed-in browsers: a request whose key middleware found a session cookie (its principal the marker
/// `session:TOKEN`) is let in as the session's list, looked up in the database each time (so a member removed,
/// or signed out everywhere, is out at once on every server); a request that changes something must carry the
/// session's CSRF token; a viewer changes nothing. Everything else passes as it came.
public struct SessionGate: Sendable {
    public static let marker = "session:"

    /// The role a request acts with: a signed-in member's, or a member's key's; `nil` for a key made on the command
    /// line or the open API (each its own list's admin).
    public static func role(of request: HTTPRequest) -> ListRole? {
        request.caller.role
    }

    /// Whether the request may change the list's own settings and channels: an admin, or a key or open API that
    /// is its list's.
    public static func actsAsAdmin(_ request: HTTPRequest) -> Bool {
        role(of: request).map { $0 == .admin } ?? true
    }
    let accounts: any AccountStore
    let clock: any TrackingClock
    let failures: StoreFailures
    /// The sessions let in lately, for the HTTP layer's question before a large body is read.
    let confirmed: ConfirmedSessions

    public init(
        accounts: any AccountStore, clock: any TrackingClock, failures: StoreFailures = StoreFailures(),
        confirmed: ConfirmedSessions = ConfirmedSessions()
    ) {
        self.accounts = accounts
        self.clock = clock
        self.failures = failures
        self.confirmed = confirmed
    }

    /// Who did what, recorded in the list's audit log once the request has succeeded, as its route declared it:
    /// a signed-in member by name, a key by its name.
    public func record(_ request: HTTPRequest, change: RouteChange?, actor: String?, response: HTTPResponse) async {
        guard let actor, let list = request.principal, (200..<300).contains(response.status),
            case .entry(let action, let detail)? = change?.audit,
            let detail = detail(AuditedRequest(request: request, response: response))
        else { return }
        do {
            try await accounts.audit(list: list, actor: actor, action: action, detail: detail, at: clock.now)
        } catch {
            // The change itself was made and answered; its line in the log is what is lost, and said.
            failures.report(.auditLog, error, context: ["request": "\(request.id ?? "-")", "action": "\(action)"])
        }
    }

    /// Who a request is for the audit log: the member signed in, or the key; `nil` for the open API.
    public static func actor(of request: HTTPRequest, member: String?) -> String? {
        member ?? request.caller.key
    }

    /// The request as the session's list, or the refusal; `member` is set to the signed-in member's name. A
    /// role below what the route declares it needs is refused by the responder, for sessions and keys alike.
    public func admit(_ request: inout HTTPRequest, member: inout String?) async -> HTTPResponse? {
        guard let principal = request.principal, principal.hasPrefix(Self.marker) else {
            // A key's role (set by the key middleware) stays; nobody but a session is a member.
            return nil
        }
        let token = String(principal.dropFirst(Self.marker.count))
        let session: SessionRecord?
        do {
            session = try await accounts.session(
                tokenHash: SessionCookie.stored(token), at: clock.now, idle: SessionCookie.idleLifetime,
                longest: SessionCookie.longestLifetime)
        } catch {
            return RouteProblem.storeUnavailable(requestID: request.id).response
        }
        guard let session else {
            confirmed.forget(token)
            var response = RouteProblem(
                status: 401, title: "Unauthorized", reason: .signedOut,
                detail: "the session has ended (signed out, expired, or no longer a member); sign in again"
            ).response
            response.headers.append(("Set-Cookie", SessionCookie.clearing(secure: true)))
            return response
        }
        if SessionCookie.changes(request.method) {
            guard SessionCookie.csrfMatches(request.headers[SessionCookie.csrfHeader], expected: session.csrf) else {
                return RouteProblem(
                    status: 403, title: "Forbidden", reason: .csrf,
                    detail: "a change from a signed-in browser needs the X-CSRF-Token header the sign-in answered").response
            }
        }
        confirmed.confirm(token)
        request.principal = session.listID
        request.caller = Caller(memberID: session.userID, role: session.role)
        member = session.userName
        return nil
    }
}
