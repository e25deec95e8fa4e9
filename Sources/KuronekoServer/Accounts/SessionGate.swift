import Foundation
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

    /// Paths a session may change without the CSRF token: none. Paths a viewer may still post to: signing out.
    static let viewerMayPost: Set<String> = [
        "/v1/session", "/v1/session/everywhere", "/v1/session/list", "/v1/invitations/accept",
    ]

    /// What a viewer may still change: signing out, and their own channels (to be told on their own phone).
    static func viewerMayChange(_ method: String, _ path: String) -> Bool {
        if viewerMayPost.contains(path) { return true }
        if method == "DELETE", path == "/v1/session" { return true }
        if method == "POST", path == "/v1/channels" || path.hasPrefix("/v1/passkeys") { return true }
        if method == "DELETE", path.hasPrefix("/v1/passkeys/") { return true }
        return method == "DELETE" && path.hasPrefix("/v1/channels/") && path.split(separator: "/").count == 3
    }

    /// Who did what, recorded in the list's audit log once the request has succeeded: a signed-in member by
    /// name, a key by its id.
    public func record(_ request: HTTPRequest, actor: String?, response: HTTPResponse) async {
        guard let actor, let list = request.principal,
            let entry = AuditAction.of(
                method: request.method, path: request.path, query: request.query, body: request.body,
                status: response.status, answer: response.body)
        else { return }
        do {
            try await accounts.audit(list: list, actor: actor, action: entry.action, detail: entry.detail, at: clock.now)
        } catch {
            // The change itself was made and answered; its line in the log is what is lost, and said.
            failures.report(.auditLog, error, context: "request=\(request.id ?? "-") action=\(entry.action)")
        }
    }

    /// Who a request is for the audit log: the member signed in, or the key; `nil` for the open API.
    public static func actor(of request: HTTPRequest, member: String?) -> String? {
        member ?? request.caller.key
    }

    /// The request as the session's list, or the refusal; `member` is set to the signed-in member's name.
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
            if session.role == .viewer, !Self.viewerMayChange(request.method, request.path) {
                return RouteProblem(
                    status: 403, title: "Forbidden", reason: .viewerOnly,
                    detail: "a viewer of this list can read it but not change it; ask its admin for the staff role").response
            }
        }
        confirmed.confirm(token)
        request.principal = session.listID
        request.caller = Caller(memberID: session.userID, role: session.role)
        member = session.userName
        return nil
    }
}
