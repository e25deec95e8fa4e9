import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import Synchronization
import KuronekoCrypto

/// The API keys in force. Requests read a snapshot and never touch the database: the snapshot is reread
/// every `maxAge` (two seconds by default, so a key created or revoked with `kuroneko keys` while the server
/// runs takes effect within that) by a task of its own (``run()``); the server reads them once before it
/// serves. With `maxAge` zero (tests) they are read only when ``refresh()`` is called.
public final class APIKeyRing: BackgroundService {
    public let name = "key-ring"
    private let store: any ListStore
    private let maxAge: Duration
    private let clock: any TrackingClock
    private let failures: StoreFailures
    private let snapshot = Snapshot()

    /// The keys last read.
    private final class Snapshot: Sendable {
        private let keys = Mutex<[APIKeyRecord]>([])
        /// Whether the API is open without a key, readable without the lock (every request asks); closed
        /// until the keys are first read.
        private let open = Atomic<Bool>(false)
        /// Whether people have accounts (a request without a key is told to sign in).
        private let accounts = Atomic<Bool>(false)

        var current: [APIKeyRecord] { keys.withLock { $0 } }
        var isOpen: Bool { open.load(ordering: .acquiring) }
        var hasAccounts: Bool { accounts.load(ordering: .acquiring) }

        func replace(with policy: KeyPolicy) {
            self.keys.withLock { $0 = policy.active }
            open.store(policy.openWithoutKey, ordering: .releasing)
            accounts.store(policy.accounts, ordering: .releasing)
        }
    }

    /// The keys in force and whether a request without one is let in.
    struct KeyPolicy: Sendable {
        let active: [APIKeyRecord]
        /// No key is active, and either none ever existed or the operator opened the API after the last
        /// revocation. Revoking the last key therefore closes the API; it never opens it.
        let openWithoutKey: Bool
        let accounts: Bool

        /// No key and not open: what a store out of reach at start reads as.
        static let closed = KeyPolicy(active: [], openWithoutKey: false)

        private init(active: [APIKeyRecord], openWithoutKey: Bool) {
            self.active = active
            self.openWithoutKey = openWithoutKey
            accounts = false
        }

        /// - Parameter accounts: whether people have accounts: then nobody is let in without a key or a session.
        init(keys: [APIKeyRecord], openedAt: Date?, accounts: Bool = false) {
            active = keys.filter { $0.revokedAt == nil }
            self.accounts = accounts
            let lastRevoked = keys.compactMap(\.revokedAt).max()
            openWithoutKey =
                !accounts && active.isEmpty && (lastRevoked == nil || (openedAt.map { $0 >= lastRevoked! } ?? false))
        }
    }

    /// - Parameter maxAge: how often ``run()`` rereads the keys; zero never (tests call ``refresh()``).
    /// Until the first ``refresh()`` the API is closed: no key, not open.
    public init(
        store: any ListStore, maxAge: Duration = .seconds(2), clock: any TrackingClock = SystemClock(),
        failures: StoreFailures = StoreFailures()
    ) {
        self.store = store
        self.maxAge = maxAge
        self.clock = clock
        self.failures = failures
        snapshot.replace(with: .closed)
    }

    /// Requests without a key are let in (as of the last read): no key is active and the API is not closed.
    public var isOpen: Bool { snapshot.isOpen }

    /// Rereads the keys every `maxAge` (on the injected clock) until cancelled.
    public func run() async {
        guard maxAge > .zero else { return }
        while !Task.isCancelled {
            try? await clock.sleep(until: clock.uptime + maxAge)
            guard !Task.isCancelled else { return }
            await refresh()
        }
    }

    /// Reads the keys now. A database out of reach keeps the keys last read (logged and counted): an outage
    /// must not open the API.
    public func refresh() async {
        do {
            let accounts = try await store.hasAccounts()
            snapshot.replace(
                with: KeyPolicy(keys: try await store.keys(), openedAt: try await store.keysOpenedAt(), accounts: accounts))
        } catch {
            failures.report(.loadKeys, error)
        }
    }

    /// The keys not revoked.
    public func active() -> [APIKeyRecord] { snapshot.current }

    /// Whether people have accounts (as of the last read).
    public var hasAccounts: Bool { snapshot.hasAccounts }
}

/// Every `/v1` route needs `Authorization: Bearer KEY` once any key exists (or when keys are required);
/// health, readiness, metrics and the OpenAPI document stay open. The key is compared by its SHA-256 in
/// constant time. The calendar feed also takes its key's read-only calendar token as `?token=`. The owner
/// found becomes the request's principal; without keys everyone is the one local owner.
public struct APIKeyMiddleware: HTTPMiddleware {
    let ring: APIKeyRing
    let required: Bool
    /// The sessions the gate let in lately (shared with the ``SessionGate``).
    let sessions: ConfirmedSessions

    public init(ring: APIKeyRing, required: Bool, sessions: ConfirmedSessions = ConfirmedSessions()) {
        self.ring = ring
        self.required = required
        self.sessions = sessions
    }

    /// Who sends a body larger than the anonymous allowance: a session let in lately or a valid key is known; a
    /// session cookie not seen lately is unconfirmed (its body counts against the smaller share); anyone else,
    /// and anyone posting to the doors used before signing in, is a stranger, answered as a request without its
    /// key is.
    public func sender(of head: HTTPRequest) -> BodySender? {
        guard Self.firstSegmentIsV1(head.path) else { return nil }
        var request = head
        if request.headers["authorization"] == nil {
            if request.method == "POST", AccountRoutes.openPaths.contains(request.path) {
                return .stranger(
                    .problem(
                        status: 413, title: "Content Too Large",
                        detail: "a sign-in, an invitation or a passkey's answer is a small JSON object of at most "
                            + "64 KiB; this body is larger",
                        reason: "body_too_large"))
            }
            if let token = SessionCookie.token(inCookieHeader: request.headers["cookie"]) {
                return sessions.isConfirmed(token) ? .known : .unconfirmed
            }
        }
        if let refusal = intercept(&request) { return .stranger(refusal) }
        return .known
    }

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        // Who the audit log names, and the member and role the routes read: set in the request's context here (a
        // key) or by the session gate (a signed-in member), never taken from the client.
        // By the first segment, as the router sees it (it skips empty segments: //v1//watches is /v1/watches).
        guard Self.firstSegmentIsV1(request.path) else { return nil }
        // A signed-in browser: its session is looked up (asynchronously) by the SessionGate; a key, when one is
        // sent too, wins. Signing in itself needs neither.
        if request.headers["authorization"] == nil {
            if request.method == "POST", AccountRoutes.openPaths.contains(request.path) {
                request.principal = nil
                return nil
            }
            if let token = SessionCookie.token(inCookieHeader: request.headers["cookie"]) {
                request.principal = SessionGate.marker + token
                return nil
            }
        }
        // Without keys (the usual local set-up) the snapshot is not even copied.
        let open = !required && ring.isOpen
        let keys = open ? [] : ring.active()
        if open {
            request.principal = WatchOwner.local.id
            return nil
        }
        if ring.hasAccounts, request.headers["authorization"] == nil {
            return Self.refusal(
                "sign in first (POST /v1/session with a name and password, or the web app's sign-in), or send "
                    + "Authorization: Bearer KEY")
        }
        if keys.isEmpty, !required {
            return Self.refusal(
                "the API is closed: its last key was revoked; create a key (kuroneko keys create --name NAME) "
                    + "or open the API to everyone (kuroneko keys open)")
        }
        if request.path.split(separator: "/") == ["v1", "calendar.ics"], let token = request.queryValue("token") {
            let hash = Secrets.sha256(token)
            if let key = keys.first(where: { Secrets.constantTimeEqual($0.calendarHash, hash) }) {
                request.principal = key.owner.id
                return nil
            }
            return Self.refusal("the calendar token is not valid; copy the feed URL again from `kuroneko keys`")
        }
        guard let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else {
            return Self.refusal(
                "this API needs a key: send Authorization: Bearer KEY (create one with `kuroneko keys create`)")
        }
        let hash = Secrets.sha256(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        var match: APIKeyRecord?
        for key in keys where Secrets.constantTimeEqual(key.keyHash, hash) { match = key }
        guard let match else { return Self.refusal("the API key is not valid (unknown or revoked)") }
        if match.role == .viewer, SessionCookie.changes(request.method) {
            return RouteProblem(
                status: 403, title: "Forbidden", reason: .viewerOnly,
                detail: "the key \(match.name) was made for a viewer: it reads the list but changes nothing").response
        }
        request.principal = match.owner.id
        // A member's key acts with its role (a staff key changes parcels, not the list's settings); a key made on
        // the command line is its own list's.
        request.caller = Caller(key: "key \(match.name)", role: match.role)
        return nil
    }

    /// Whether the path's first non-empty segment is `v1`, read byte by byte: this runs for every request.
    static func firstSegmentIsV1(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            var index = 0
            while index < bytes.count, bytes[index] == UInt8(ascii: "/") { index += 1 }
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "v"), bytes[index + 1] == UInt8(ascii: "1")
            else { return false }
            return bytes.count - index == 2 || bytes[index + 2] == UInt8(ascii: "/")
        }
    }

    private static func refusal(_ detail: String) -> HTTPResponse {
        var response = RouteProblem(
            status: 401, title: "Unauthorized", reason: nil, detail: detail, type: "https://kuroneko.invalid/problems/api-key"
        ).response
        response.headers.append(("WWW-Authenticate", "Bearer"))
        return response
    }
}
