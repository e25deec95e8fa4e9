import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import Synchronization
import KuronekoCrypto
import KuronekoAccounts

/// `/v1/session`: signing in with a name and password (throttled per account and per address; a wrong name and
/// a wrong password are the same answer), who is signed in, signing out here or everywhere.
final class AccountRoutes: Sendable {
    static let signInPath = "/v1/session"
    /// What is posted before anyone is signed in: a password, an invitation, a passkey and its challenge.
    static let openPaths: Set<String> = [signInPath, acceptPath, passkeySignInPath, passkeyOptionsPath]
    let watches: WatchRoutes
    let accounts: any AccountStore
    let throttle: Mutex<SignInThrottle>
    /// Password hashes being computed (32 MiB and a tenth of a second each, on threads of their own): at most
    /// ``concurrentHashes``; past it a sign-in or an acceptance is answered 503 with Retry-After.
    let hashing = ConcurrencyLimit(AccountRoutes.concurrentHashes)
    static let concurrentHashes = 4
    /// The clients (as the throttle counts them) with a password being checked: each has one turn at a time at the
    /// hash slots, so a flood from one address holds at most one of them and a member elsewhere still gets one.
    let turns = Mutex<Set<String>>([])
    /// Whether the session cookie is `Secure` (every https server; plain http only on loopback for tests).
    let secureCookies: Bool

    /// The key passkey challenges are signed with (the same on every server of the database).
    let challengeKey: String
    /// Where the web app is, as people open it: the passkeys' site when set, else the request's Host.
    let publicURL: URL?

    init(watches: WatchRoutes, accounts: any AccountStore, secureCookies: Bool, challengeKey: String, publicURL: URL?) {
        self.watches = watches
        self.accounts = accounts
        self.secureCookies = secureCookies
        self.challengeKey = challengeKey
        self.publicURL = publicURL
        throttle = Mutex(SignInThrottle())
    }

    func register(into router: inout Router) {
        let routes = self
        router.add("POST", Self.signInPath, declares: RouteChange(needs: .anyone, audit: .none("signing in changes no list"))) { request, _ in await routes.watches.answer(request) { try await routes.signIn(request) } }
        router.add("GET", Self.signInPath) { request, _ in await routes.watches.answer(request) { try await routes.current(request) } }
        router.add("DELETE", Self.signInPath, declares: RouteChange(needs: .viewer, audit: .none("signing out changes no list"))) { request, _ in
            await routes.watches.answer(request) { try await routes.signOut(request, everywhere: false) }
        }
        router.add("POST", "/v1/session/everywhere", declares: RouteChange(needs: .viewer, audit: .none("signing out changes no list"))) { request, _ in
            await routes.watches.answer(request) { try await routes.signOut(request, everywhere: true) }
        }
        router.add("POST", "/v1/session/list", declares: RouteChange(needs: .viewer, audit: .none("choosing a list to work in changes none"))) { request, _ in
            await routes.watches.answer(request) { try await routes.switchList(request) }
        }
        registerMembers(into: &router)
        registerKeys(into: &router)
        registerPasskeys(into: &router)
    }

    /// Account names as typed: case and width folded, spaces trimmed.
    static func folded(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// A sign-in or an invitation's acceptance comes as JSON only: a form another site makes a browser post
    /// (login CSRF) cannot send that type without the browser asking first.
    static func requireJSON(_ request: HTTPRequest) throws {
        let type = (request.headers["content-type"] ?? "").split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw RouteProblem(
                status: 415, title: "Unsupported Media Type", reason: .invalidRequest,
                detail: "send the body as application/json")
        }
    }

    private func signIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.requireJSON(request)
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            let nameText = object["name"] as? String, let password = object["password"] as? String,
            Set(object.keys).isSubset(of: ["name", "password", "list"])
        else {
            throw RouteProblem.bad("the body is not {\"name\": text, \"password\": text}")
        }
        let name = Self.folded(nameText)
        guard (1...64).contains(name.count), password.utf8.count <= Passwords.longestBytes else {
            throw RouteProblem.bad(
                "name must be 1 to 64 characters and password at most \(Passwords.longestBytes) bytes in UTF-8")
        }
        try admitPasswordAttempt(name: name, request: request)
        guard let user = try await checkPassword(password, of: name, request: request) else {
            throw Self.wrongNameOrPassword
        }
        return try await startSession(for: user, wanted: object["list"] as? String, at: watches.clock.now)
    }

    /// The one answer to a wrong password, whether the name exists or not.
    static let wrongNameOrPassword = RouteProblem(
        status: 401, title: "Unauthorized", reason: .badCredentials, detail: "the name or the password is not right")

    /// The first step of every door that takes a password (signing in, joining with an existing account): a 429
    /// when this account or this address has guessed too often lately, asked before anything is looked up.
    func admitPasswordAttempt(name: String, request: HTTPRequest) throws {
        let address = Self.throttleAddress(request, account: name)
        let now = watches.clock.now
        if case .wait(let seconds) = throttle.withLock({ $0.ask(account: name, address: address, at: now) }) {
            throw RouteProblem(
                status: 429, title: "Too Many Requests", reason: .tooManyAttempts,
                detail: "too many password attempts for this account or from this address; try again in \(seconds) s",
                retryAfter: seconds)
        }
    }

    /// The second step: the account when the password is its own, else `nil`, the outcome counted against the
    /// account and the address. A missing account costs the same hash as a wrong password, so neither the answer
    /// nor its time tells which.
    func checkPassword(_ password: String, of name: String, request: HTTPRequest) async throws -> UserRecord? {
        let user = try await accounts.user(named: name)
        let matches = try await inTurn(of: request, account: name) { try await verify(password, stored: user?.passwordHash) }
        let succeeded = matches && user != nil && user?.removedAt == nil
        throttle.withLock {
            $0.record(
                account: name, address: Self.throttleAddress(request, account: name), succeeded: succeeded,
                at: watches.clock.now)
        }
        return succeeded ? user : nil
    }

    /// What the sign-in throttle counts an attempt's address as: the connection's (never a header a client could
    /// choose); one from this machine is a reverse proxy's or the household's own, counted per account only, so
    /// one guesser behind the proxy cannot keep everyone out.
    static func throttleAddress(_ request: HTTPRequest, account: String) -> String {
        request.client == 0 || request.clientIsLoopback ? "account:" + account : "address:\(request.client)"
    }

    /// Runs `work` (a password hash) as the client's one turn at the hash slots; a second attempt from the same
    /// client while one is being checked is answered 429 at once, before it costs a hash.
    func inTurn<T: Sendable>(of request: HTTPRequest, account: String, _ work: () async throws -> T) async throws -> T {
        let client = Self.throttleAddress(request, account: account)
        guard turns.withLock({ $0.insert(client).inserted }) else {
            throw RouteProblem(
                status: 429, title: "Too Many Requests", reason: .tooManyAttempts,
                detail: "a password from this address is being checked already; send one at a time", retryAfter: 1)
        }
        defer { _ = turns.withLock { $0.remove(client) } }
        return try await work()
    }

    /// A new session for a person who proved who they are (a password, a passkey), in the list wanted or their
    /// first: a new token whatever cookie came with the request, and its CSRF token.
    /// - Parameter note: said in the answer's `note` (an invitation that changed nothing).
    func startSession(for user: UserRecord, wanted: String?, at now: Date, note: String? = nil) async throws -> HTTPResponse {
        let lists = try await accounts.memberships(ofUser: user.id)
        guard let membership = lists.first(where: { wanted == nil || $0.listID == wanted }) else {
            throw RouteProblem(
                status: 403, title: "Forbidden", reason: .notAMember,
                detail: wanted == nil ? "\(user.name) is not a member of any list yet; ask an admin for an invitation"
                    : "\(user.name) is not a member of the list \(wanted ?? "")")
        }
        let token = SessionCookie.newToken()
        let csrf = Secrets.random(bytes: 32)
        try await accounts.createSession(
            tokenHash: SessionCookie.stored(token), user: user.id, list: membership.listID, csrf: csrf, at: now)
        var fields: [String: Any] = [
            "name": user.name, "display_name": user.displayName, "list": membership.listID,
            "list_name": membership.listName, "role": membership.role.rawValue, "csrf_token": csrf,
            "lists": lists.map { ["id": $0.listID, "name": $0.listName, "role": $0.role.rawValue] },
        ]
        if let note { fields["note"] = note }
        var response = HTTPResponse.jsonData(WatchRoutes.object(fields))
        response.headers.append(("Set-Cookie", SessionCookie.setting(token, secure: secureCookies)))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    func session(of request: HTTPRequest) async throws -> (SessionRecord, String)? {
        guard let token = SessionCookie.token(inCookieHeader: request.headers["cookie"]) else { return nil }
        let found = try await accounts.session(
            tokenHash: SessionCookie.stored(token), at: watches.clock.now, idle: SessionCookie.idleLifetime,
            longest: SessionCookie.longestLifetime)
        return found.map { ($0, token) }
    }

    private func current(_ request: HTTPRequest) async throws -> HTTPResponse {
        // No session cookie at all (the open API, a key): nobody, which is no error; a cookie that no longer
        // holds is 401.
        guard SessionCookie.token(inCookieHeader: request.headers["cookie"]) != nil else { return HTTPResponse(status: 204) }
        guard let (session, _) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "nobody is signed in here")
        }
        // The lists this member may sign in to (the page offers to switch), the one signed in to first.
        let memberships = try await accounts.memberships(ofUser: session.userID)
        let lists = memberships.filter { $0.listID == session.listID } + memberships.filter { $0.listID != session.listID }
        return .jsonData(
            WatchRoutes.object([
                "name": session.userName, "list": session.listID, "role": session.role.rawValue, "csrf_token": session.csrf,
                "signed_in_at": JapanDateTime(session.createdAt).iso8601,
                "lists": lists.map { ["id": $0.listID, "name": $0.listName, "role": $0.role.rawValue] },
            ]))
    }

    /// `{"list": ID}`: the signed-in member turns to another of their lists. The session is replaced (a new token
    /// and CSRF token, the old one ended), as at sign-in, without asking for the password again.
    private func switchList(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Self.requireJSON(request)
        guard let (session, token) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "nobody is signed in here")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any], object.count == 1,
            let wanted = object["list"] as? String
        else { throw RouteProblem.bad("the body is not {\"list\": the id of one of your lists}") }
        let lists = try await accounts.memberships(ofUser: session.userID)
        guard let membership = lists.first(where: { $0.listID == wanted }) else {
            throw RouteProblem(
                status: 403, title: "Forbidden", reason: .notAMember,
                detail: "\(session.userName) is not a member of the list \(wanted.prefix(64))")
        }
        let now = watches.clock.now
        let fresh = SessionCookie.newToken()
        let csrf = Secrets.random(bytes: 32)
        try await accounts.createSession(
            tokenHash: SessionCookie.stored(fresh), user: session.userID, list: membership.listID, csrf: csrf, at: now)
        try await accounts.endSession(tokenHash: SessionCookie.stored(token))
        var response = HTTPResponse.jsonData(
            WatchRoutes.object([
                "name": session.userName, "list": membership.listID, "list_name": membership.listName,
                "role": membership.role.rawValue, "csrf_token": csrf,
            ]))
        response.headers.append(("Set-Cookie", SessionCookie.setting(fresh, secure: secureCookies)))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    private func signOut(_ request: HTTPRequest, everywhere: Bool) async throws -> HTTPResponse {
        guard let (session, token) = try await session(of: request) else {
            throw RouteProblem(status: 401, title: "Unauthorized", reason: .signedOut, detail: "nobody is signed in here")
        }
        if everywhere {
            _ = try await accounts.endSessions(ofUser: session.userID)
        } else {
            try await accounts.endSession(tokenHash: SessionCookie.stored(token))
        }
        var response = HTTPResponse(status: 204)
        response.headers.append(("Set-Cookie", SessionCookie.clearing(secure: secureCookies)))
        return response
    }

    /// Checks a password on a thread of its own, at most ``concurrentHashes`` at once; `nil` stored checks the
    /// decoy (made there too, the first time).
    func verify(_ password: String, stored: String?) async throws -> Bool {
        try await hashed { Passwords.verify(password, stored: stored ?? AccountRoutes.decoy) }
    }

    /// Runs one password hash off the cooperative pool, or refuses when ``concurrentHashes`` are running.
    func hashed<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        guard hashing.enter() else {
            throw RouteProblem(
                status: 503, title: "Service Unavailable", reason: .busy,
                detail: "\(Self.concurrentHashes) passwords are being checked already; try again in a moment",
                retryAfter: 1)
        }
        defer { hashing.leave() }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// A hash no password matches, checked when the account does not exist.
    static let decoy: String = Passwords.hash(Secrets.random(bytes: 16)) ?? "scrypt$15$8$1$AAAA$AAAA"
}
