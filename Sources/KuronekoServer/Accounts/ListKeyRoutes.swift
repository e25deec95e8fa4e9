import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import KuronekoCrypto

/// `/v1/keys`: a member makes an API key for their list (a shop's system, a script) with a role no higher than
/// their own; the key and its calendar token are shown once. An admin lists the list's keys and revokes one; a
/// member removed from the list takes the keys they made with them.
extension AccountRoutes {
    func registerKeys(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/keys", declares: RouteChange(needs: .staff, audit: .byRoute("key_made"))) { request, _ in await routes.watches.answer(request) { try await routes.makeKey(request) } }
        router.add("GET", "/v1/keys") { request, _ in await routes.watches.answer(request) { try await routes.listKeys(request) } }
        router.add("DELETE", "/v1/keys/{name}", declares: RouteChange(needs: .admin, audit: .byRoute("key_revoked"))) { request, parameters in
            await routes.watches.answer(request) { try await routes.revokeKey(request, name: parameters["name"] ?? "") }
        }
    }

    private func makeKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let (session, _) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "sign in to make a key for your list")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            Set(object.keys).isSubset(of: ["name", "role"]), let name = object["name"] as? String,
            let roleText = object["role"] as? String, let role = ListRole(rawValue: roleText)
        else {
            throw RouteProblem.bad("the body is not {\"name\": text, \"role\": \"admin\" | \"staff\" | \"viewer\"}")
        }
        guard (1...64).contains(name.count), name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw RouteProblem.bad("name \"\(name.prefix(64))\" is not 1 to 64 letters, digits, -, _ or .")
        }
        guard role <= session.role else {
            throw RouteProblem(
                status: 403, title: "Forbidden", reason: .viewerOnly,
                detail: "a key cannot do more than its maker: you are \(session.role.rawValue) of this list")
        }
        let key = Secrets.random(prefix: "kn_")
        let calendar = Secrets.random(bytes: 16, prefix: "cal_")
        let store = watches.store
        let record = try await store.createKey(
            name: name, keyHash: Secrets.sha256(key), calendarHash: Secrets.sha256(calendar), now: watches.clock.now,
            list: session.listID, role: role, madeBy: session.userID)
        try await accounts.audit(
            list: session.listID, actor: session.userName, action: "key_made", detail: "\(name) (\(role.rawValue))",
            at: watches.clock.now)
        var response = HTTPResponse.jsonData(
            WatchRoutes.object([
                "name": record.name, "role": role.rawValue, "key": key, "calendar_token": calendar,
                "list": session.listID,
            ]), status: 201)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    private func listKeys(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try await admin(request)
        let store = watches.store
        let keys = try await store.keys().filter { $0.listID == session.listID }
        return .jsonData(
            WatchRoutes.object([
                "keys": keys.map { key in
                    [
                        "name": key.name, "role": key.role?.rawValue ?? "viewer",
                        "created_at": JapanDateTime(key.createdAt).iso8601,
                        "revoked_at": key.revokedAt.map { JapanDateTime($0).iso8601 } ?? NSNull(),
                    ] as [String: Any]
                }
            ]))
    }

    private func revokeKey(_ request: HTTPRequest, name: String) async throws -> HTTPResponse {
        let session = try await admin(request)
        let store = watches.store
        guard let key = try await store.keys().first(where: { $0.listID == session.listID && $0.name == name && $0.revokedAt == nil }),
            try await store.revokeKey(id: key.id, now: watches.clock.now)
        else { throw RouteProblem.notFound("key \(name.prefix(64))") }
        try await accounts.audit(
            list: session.listID, actor: session.userName, action: "key_revoked", detail: name, at: watches.clock.now)
        return HTTPResponse(status: 204)
    }
}
