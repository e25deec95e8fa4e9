import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import KuronekoCrypto
import KuronekoAccounts

/// `/v1/invitations`: an admin invites someone to the list with a role (a link, single use, expiring in 7 days at
/// most); whoever opens it makes an account (name and password) or, already having one, joins, and is signed in.
/// `/v1/members`: the list's members; an admin changes a role or removes a member (their sessions end at once).
extension AccountRoutes {
    static let invitationLifetime: TimeInterval = 7 * 86_400

    func registerMembers(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/invitations", declares: RouteChange(needs: .admin, audit: .byRoute("invited"))) { request, _ in
            await routes.watches.answer(request) { try await routes.invite(request) }
        }
        router.add("POST", Self.acceptPath, declares: RouteChange(needs: .anyone, audit: .byRoute("joined"))) { request, _ in
            await routes.watches.answer(request) { try await routes.accept(request) }
        }
        router.add("GET", "/v1/members") { request, _ in
            await routes.watches.answer(request) { try await routes.listMembers(request) }
        }
        router.add("GET", "/v1/audit") { request, _ in
            await routes.watches.answer(request) { try await routes.auditLog(request) }
        }
        router.add("DELETE", "/v1/members/{name}", declares: RouteChange(needs: .admin, audit: .byRoute("member_removed"))) { request, parameters in
            await routes.watches.answer(request) { try await routes.removeMember(request, name: parameters["name"] ?? "") }
        }
    }

    static let acceptPath = "/v1/invitations/accept"

    /// The signed-in admin, or the refusal.
    func admin(_ request: HTTPRequest) async throws -> SessionRecord {
        guard let (session, _) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "sign in as an admin of the list")
        }
        guard session.role == .admin else {
            throw RouteProblem(
                status: 403, title: "Forbidden", reason: .viewerOnly,
                detail: "only an admin of the list manages its members; you are \(session.role.rawValue)")
        }
        return session
    }

    private func invite(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try await admin(request)
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            Set(object.keys).isSubset(of: ["role", "days"]),
            let roleText = object["role"] as? String, let role = ListRole(rawValue: roleText)
        else {
            throw RouteProblem.bad("the body is not {\"role\": \"admin\" | \"staff\" | \"viewer\", \"days\": 1 to 7}")
        }
        var days = 7.0
        if let value = object["days"] {
            guard let number = value as? Int, (1...7).contains(number) else { throw RouteProblem.bad("days is not 1 to 7") }
            days = Double(number)
        }
        let token = Secrets.random(bytes: 32, prefix: "inv_")
        let now = watches.clock.now
        let expires = now.addingTimeInterval(min(Self.invitationLifetime, days * 86_400))
        try await accounts.createInvitation(
            tokenHash: Secrets.sha256(token), list: session.listID, role: role, madeBy: session.userID, at: now,
            expiresAt: expires)
        try await accounts.audit(
            list: session.listID, actor: session.userName, action: "invited", detail: "role \(role.rawValue)",
            at: now)
        return .jsonData(
            WatchRoutes.object([
                "token": token, "role": role.rawValue, "expires_at": JapanDateTime(expires).iso8601,
                "path": "/join#\(token)",
            ]), status: 201)
    }

    /// `{"token", "name", "password", "display_name"?}`: a new account joins the list (or an existing one, with its
    /// password), signed in at once.
    private func accept(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.requireJSON(request)
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            Set(object.keys).isSubset(of: ["token", "name", "password", "display_name"]),
            let token = object["token"] as? String, token.count <= 100,
            let nameText = object["name"] as? String, let password = object["password"] as? String
        else {
            throw RouteProblem.bad("the body is not {\"token\", \"name\", \"password\", \"display_name\"}")
        }
        let name = Self.folded(nameText)
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw RouteProblem.bad("name must be 1 to 64 characters of text")
        }
        if let problem = Passwords.problem(password) { throw RouteProblem.bad("the password \(problem)") }
        let now = watches.clock.now
        // Nothing is made for a token that is not a usable invitation: an account is never created by a guess
        // (and never the first one, which would be the list's admin).
        guard let invitation = try await accounts.invitation(tokenHash: Secrets.sha256(token), at: now) else {
            throw RouteProblem(
                status: 410, title: "Gone", reason: .invitationUsed,
                detail: "the invitation is not valid: used already, expired, or not one of this server's")
        }
        // The same door as signing in: throttled per account and per address, one answer for a wrong password.
        try admitPasswordAttempt(name: name, request: request)
        var user = try await accounts.user(named: name)
        if user != nil {
            guard let existing = try await checkPassword(password, of: name, request: request) else {
                throw RouteProblem(
                    status: 401, title: "Unauthorized", reason: .badCredentials,
                    detail: "the name or the password is not right; to join with an account give its own password, "
                        + "or choose a new name")
            }
            user = existing
            // Someone who has this role or a higher one in the list already (an admin opening the viewer's link
            // they made) changes nothing: the invitation stays for whoever it was meant for.
            if let held = try await accounts.memberships(ofUser: existing.id).first(where: { $0.listID == invitation.list }),
                held.role >= invitation.role
            {
                return try await startSession(
                    for: existing, wanted: invitation.list, at: now,
                    note: "you are \(held.role.rawValue) of this list already; nothing changed and the invitation "
                        + "(\(invitation.role.rawValue)) is left for whoever it was meant for")
            }
        } else {
            let hash = try await inTurn(of: request, account: name) { try await hashed { Passwords.hash(password) } }
            guard let hash else { throw RouteProblem.internalError(requestID: request.id) }
            let display = (object["display_name"] as? String).map { String($0.prefix(64)) } ?? nameText
            user = try await accounts.createUser(name: name, displayName: display, passwordHash: hash, at: now)
        }
        guard let user, let (list, role) = try await accounts.useInvitation(tokenHash: Secrets.sha256(token), user: user.id, at: now)
        else {
            throw RouteProblem(
                status: 410, title: "Gone", reason: .invitationUsed,
                detail: "the invitation is not valid: used already, expired, or not one of this server's")
        }
        try await accounts.audit(list: list, actor: user.name, action: "joined", detail: "role \(role.rawValue)", at: now)
        let session = SessionCookie.newToken()
        let csrf = Secrets.random(bytes: 32)
        try await accounts.createSession(tokenHash: SessionCookie.stored(session), user: user.id, list: list, csrf: csrf, at: now)
        var response = HTTPResponse.jsonData(
            WatchRoutes.object(["name": user.name, "list": list, "role": role.rawValue, "csrf_token": csrf]), status: 201)
        response.headers.append(("Set-Cookie", SessionCookie.setting(session, secure: secureCookies)))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The list's audit log for its admins, newest first: `?limit=` (1 to 10,000, 500 by default), `?before=` a
    /// time for the next page, `?format=csv` as a sheet (its cells made safe for Excel).
    private func auditLog(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try await admin(request)
        var limit = 500
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw RouteProblem.bad("limit \"\(text.prefix(20))\" is not a whole number from 1 to 10000")
            }
            limit = value
        }
        var before: Date?
        if let text = request.queryValue("before") {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw RouteProblem.bad("before \"\(text.prefix(40))\" is not an ISO 8601 time such as 2026-12-04T09:00:00+09:00")
            }
            before = date
        }
        let entries = try await accounts.auditLog(list: session.listID, before: before, limit: limit)
        if request.queryValue("format") == "csv" {
            var lines = [CSVLine.make(["at", "member", "action", "detail"], excel: true)]
            for entry in entries {
                lines.append(CSVLine.make([JapanDateTime(entry.at).iso8601, entry.actor, entry.action, entry.detail], excel: true))
            }
            var response = HTTPResponse.content(
                Data((lines.joined(separator: "\r\n") + "\r\n").utf8), type: "text/csv; charset=utf-8")
            response.headers.append(("Content-Disposition", "attachment; filename=\"kuroneko-audit.csv\""))
            return response
        }
        return .jsonData(
            WatchRoutes.object([
                "entries": entries.map {
                    ["at": JapanDateTime($0.at).iso8601, "member": $0.actor, "action": $0.action, "detail": $0.detail]
                },
                "next_before": entries.count == limit ? entries.last.map { JapanDateTime($0.at).iso8601 } ?? NSNull() : NSNull(),
            ]))
    }

    private func listMembers(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let (session, _) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "sign in to see the members")
        }
        let members = try await accounts.members(ofList: session.listID)
        return .jsonData(
            WatchRoutes.object([
                "members": members.map { ["name": $0.userName, "display_name": $0.userDisplayName, "role": $0.role.rawValue] }
            ]))
    }

    private func removeMember(_ request: HTTPRequest, name: String) async throws -> HTTPResponse {
        let session = try await admin(request)
        let folded = Self.folded(name)
        guard let user = try await accounts.user(named: folded), user.id != session.userID else {
            throw RouteProblem.notFound("member \(folded.prefix(64))")
        }
        guard try await accounts.removeMember(list: session.listID, user: user.id) else {
            throw RouteProblem.notFound("member \(folded.prefix(64))")
        }
        try await accounts.audit(
            list: session.listID, actor: session.userName, action: "member_removed", detail: user.name,
            at: watches.clock.now)
        return HTTPResponse(status: 204)
    }
}
