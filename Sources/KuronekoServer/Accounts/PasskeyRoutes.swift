import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import KuronekoCrypto
import KuronekoAccounts

/// Passkeys (WebAuthn): a signed-in member registers one (`/v1/passkeys/options`, then `POST /v1/passkeys`),
/// lists and removes their own; anyone signs in with one (`/v1/session/passkey/options`, then
/// `POST /v1/session/passkey`), no name needed (the passkey is discoverable). Challenges are signed, not stored
/// when given (any server of the database checks them), last 5 minutes, and are taken once: an answered one is
/// kept (hashed) in the database until it expires, so a captured answer is refused on every server; a passkey
/// belongs to the site people open (`--public-url`, else the request's Host).
extension AccountRoutes {
    /// The most passkeys a person keeps.
    static let passkeysPerPerson = 20
    static let passkeySignInPath = "/v1/session/passkey"
    static let passkeyOptionsPath = "/v1/session/passkey/options"

    func registerPasskeys(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/passkeys/options", declares: RouteChange(needs: .viewer, audit: .none("a challenge to sign changes nothing"))) { request, _ in
            await routes.watches.answer(request) { try await routes.creationOptions(request) }
        }
        router.add("POST", "/v1/passkeys", declares: RouteChange(needs: .viewer, audit: .byRoute("passkey_added"))) { request, _ in
            await routes.watches.answer(request) { try await routes.registerPasskey(request) }
        }
        router.add("GET", "/v1/passkeys") { request, _ in await routes.watches.answer(request) { try await routes.listPasskeys(request) } }
        router.add("DELETE", "/v1/passkeys/{id}", declares: RouteChange(needs: .viewer, audit: .byRoute("passkey_removed"))) { request, parameters in
            await routes.watches.answer(request) { try await routes.removePasskey(request, id: parameters["id"] ?? "") }
        }
        router.add("POST", Self.passkeyOptionsPath, declares: RouteChange(needs: .anyone, audit: .none("a challenge to sign changes nothing"))) { request, _ in
            await routes.watches.answer(request) { try await routes.requestOptions(request) }
        }
        router.add("POST", Self.passkeySignInPath, declares: RouteChange(needs: .anyone, audit: .none("signing in changes no list"))) { request, _ in
            await routes.watches.answer(request) { try await routes.signInWithPasskey(request) }
        }
    }

    /// The site passkeys belong to: `https://host[:port]` and the host.
    func passkeySite(_ request: HTTPRequest) throws -> (origin: String, relyingParty: String) {
        if let publicURL, let host = publicURL.host, !host.isEmpty { return (VAPID.origin(of: publicURL), host) }
        guard let authority = request.headers["host"], !authority.isEmpty, authority.count <= 255,
            let url = URL(string: (secureCookies ? "https://" : "http://") + authority), let host = url.host, !host.isEmpty
        else { throw RouteProblem.bad("passkeys need the request's Host (or the server's --public-url)") }
        return (VAPID.origin(of: url), host)
    }

    private func signedIn(_ request: HTTPRequest, _ doing: String) async throws -> SessionRecord {
        guard let (session, _) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "sign in to \(doing)")
        }
        return session
    }

    private func creationOptions(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try await signedIn(request, "add a passkey")
        let site = try passkeySite(request)
        let user = try await accounts.user(id: session.userID)
        let known = try await accounts.passkeys(ofUser: session.userID)
        let challenge = PasskeyChallenge.make(purpose: "register:\(session.userID)", key: challengeKey, now: watches.clock.now)
        var handle = UInt64(session.userID).bigEndian
        return .jsonData(
            WatchRoutes.object([
                "challenge": Base64URL.encode(challenge), "rp": ["id": site.relyingParty, "name": "Kuroneko"],
                "user": [
                    "id": Base64URL.encode(Data(bytes: &handle, count: 8)), "name": session.userName,
                    "displayName": user?.displayName ?? session.userName,
                ],
                "pubKeyCredParams": [["type": "public-key", "alg": -7]],
                "excludeCredentials": known.map { ["type": "public-key", "id": Base64URL.encode($0.credentialID)] },
                "authenticatorSelection": ["residentKey": "required", "userVerification": "preferred"],
                "attestation": "none", "timeout": Int(PasskeyChallenge.lifetime * 1_000),
            ]))
    }

    /// The base64url fields of a passkey's answer, each present and within its size.
    private static func fields(_ body: Data, _ names: [String], optional: Set<String> = []) throws -> [String: Data] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            Set(object.keys).isSubset(of: Set(names).union(optional))
        else {
            throw RouteProblem.bad("the body is not {" + names.map { "\"\($0)\": base64url" }.joined(separator: ", ") + "}")
        }
        var found: [String: Data] = [:]
        for name in names {
            guard let text = object[name] as? String, text.count <= 8_192, let data = Base64URL.decode(text), !data.isEmpty else {
                throw RouteProblem.bad("\(name) is not base64url of at most 6 KiB")
            }
            found[name] = data
        }
        return found
    }

    /// The challenge the client data names, if it is one this server gave for `purpose` and still fresh.
    private func expected(_ clientData: Data, purpose: String, site: (origin: String, relyingParty: String)) throws
        -> Passkey.Expected
    {
        let object = (try? JSONSerialization.jsonObject(with: clientData)) as? [String: Any]
        guard let text = object?["challenge"] as? String, let challenge = Base64URL.decode(text),
            PasskeyChallenge.isValid(challenge, purpose: purpose, key: challengeKey, now: watches.clock.now)
        else { throw Self.refused(.wrongChallenge) }
        return Passkey.Expected(challenge: challenge, origin: site.origin, relyingParty: site.relyingParty)
    }

    /// Takes the answered challenge as used (until it expires); `false` when it was used already.
    private func takeChallenge(_ expected: Passkey.Expected, now: Date) async throws -> Bool {
        try await accounts.useChallenge(
            hash: Secrets.sha256(bytes: expected.challenge),
            expiresAt: now.addingTimeInterval(PasskeyChallenge.lifetime), now: now)
    }

    static func refused(_ error: PasskeyError) -> RouteProblem {
        RouteProblem(status: 400, title: "Bad Request", reason: .passkeyRefused, detail: error.description)
    }

    private func registerPasskey(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.requireJSON(request)
        let session = try await signedIn(request, "add a passkey")
        let fields = try Self.fields(request.body, ["client_data", "attestation"], optional: ["id", "name"])
        let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
        var name = "passkey"
        if let given = object?["name"] {
            guard let text = given as? String, (1...60).contains(text.count),
                !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw RouteProblem.bad("name is not 1 to 60 characters") }
            name = text
        }
        let site = try passkeySite(request)
        let expected = try expected(fields["client_data"]!, purpose: "register:\(session.userID)", site: site)
        let credential: Passkey.Credential
        do {
            credential = try Passkey.register(
                clientDataJSON: fields["client_data"]!, attestationObject: fields["attestation"]!, expected: expected)
        } catch {
            throw Self.refused(error)
        }
        let now = watches.clock.now
        guard try await takeChallenge(expected, now: now) else { throw Self.refused(.challengeUsed) }
        let record = PasskeyRecord(
            credentialID: credential.id, userID: session.userID, publicKey: credential.publicKey,
            signCount: credential.signCount, name: name, createdAt: now, lastUsedAt: nil)
        guard try await accounts.addPasskey(record, limit: Self.passkeysPerPerson) else {
            throw RouteProblem(
                status: 409, title: "Conflict", reason: .passkeyRefused,
                detail: "this passkey is registered already, or you have \(Self.passkeysPerPerson) (remove one first)")
        }
        try await accounts.audit(list: session.listID, actor: session.userName, action: "passkey_added", detail: name, at: now)
        return .jsonData(Self.object(record), status: 201)
    }

    static func object(_ passkey: PasskeyRecord) -> Data {
        WatchRoutes.object([
            "id": Base64URL.encode(passkey.credentialID), "name": passkey.name,
            "created_at": JapanDateTime(passkey.createdAt).iso8601,
            "last_used_at": passkey.lastUsedAt.map { JapanDateTime($0).iso8601 } ?? NSNull(),
        ])
    }

    private func listPasskeys(_ request: HTTPRequest) async throws -> HTTPResponse {
        let session = try await signedIn(request, "see your passkeys")
        let passkeys = try await accounts.passkeys(ofUser: session.userID)
        let items = passkeys.compactMap { try? JSONSerialization.jsonObject(with: Self.object($0)) }
        return .jsonData(WatchRoutes.object(["passkeys": items]))
    }

    private func removePasskey(_ request: HTTPRequest, id: String) async throws -> HTTPResponse {
        let session = try await signedIn(request, "remove a passkey")
        guard id.count <= 2_048, let credential = Base64URL.decode(id),
            try await accounts.removePasskey(credentialID: credential, user: session.userID)
        else { throw RouteProblem.notFound("passkey \(id.prefix(40))") }
        try await accounts.audit(
            list: session.listID, actor: session.userName, action: "passkey_removed", detail: String(id.prefix(16)),
            at: watches.clock.now)
        return HTTPResponse(status: 204)
    }

    private func requestOptions(_ request: HTTPRequest) async throws -> HTTPResponse {
        let site = try passkeySite(request)
        let challenge = PasskeyChallenge.make(purpose: "signin", key: challengeKey, now: watches.clock.now)
        var response = HTTPResponse.jsonData(
            WatchRoutes.object([
                "challenge": Base64URL.encode(challenge), "rpId": site.relyingParty, "userVerification": "preferred",
                "timeout": Int(PasskeyChallenge.lifetime * 1_000),
            ]))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    private func signInWithPasskey(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.requireJSON(request)
        let fields = try Self.fields(request.body, ["id", "client_data", "authenticator_data", "signature"], optional: ["list"])
        let wanted = ((try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any])?["list"]
        if wanted != nil, !(wanted is String) { throw RouteProblem.bad("list is not a list's id") }
        let now = watches.clock.now
        let account = "passkey:" + Base64URL.encode(fields["id"]!).prefix(64)
        let address = Self.throttleAddress(request, account: account)
        if case .wait(let seconds) = throttle.withLock({ $0.ask(account: account, address: address, at: now) }) {
            throw RouteProblem(
                status: 429, title: "Too Many Requests", reason: .tooManyAttempts,
                detail: "too many sign-in attempts from this address; try again in \(seconds) s", retryAfter: seconds)
        }
        var outcome: Result<UserRecord, RouteProblem> = .failure(
            RouteProblem(status: 401, title: "Unauthorized", reason: .badCredentials, detail: "this passkey is not one of this server's"))
        if let stored = try await accounts.passkey(credentialID: fields["id"]!),
            let user = try await accounts.user(id: stored.userID), user.removedAt == nil
        {
            do {
                let expected = try expected(fields["client_data"]!, purpose: "signin", site: try passkeySite(request))
                let count = try Passkey.verify(
                    clientDataJSON: fields["client_data"]!, authenticatorData: fields["authenticator_data"]!,
                    signature: fields["signature"]!,
                    credential: Passkey.Credential(id: stored.credentialID, publicKey: stored.publicKey, signCount: stored.signCount),
                    expected: expected)
                // The challenge is taken once, on any server of the database (a captured answer is not taken
                // again, whatever the counter says: an authenticator without one always sends 0).
                if try await !takeChallenge(expected, now: now) {
                    outcome = .failure(Self.refused(.challengeUsed))
                } else if try await accounts.usePasskey(credentialID: stored.credentialID, signCount: count, at: now) {
                    outcome = .success(user)
                } else {
                    outcome = .failure(Self.refused(.replayed))
                }
            } catch let error as PasskeyError {
                outcome = .failure(Self.refused(error))
            } catch let problem as RouteProblem {
                outcome = .failure(problem)
            }
        }
        let succeeded = (try? outcome.get()) != nil
        throttle.withLock { $0.record(account: account, address: address, succeeded: succeeded, at: now) }
        return try await startSession(for: try outcome.get(), wanted: wanted as? String, at: now)
    }
}
