import Foundation
import KuronekoHTTP
import KuronekoWatch
import Synchronization

/// The API keys in force. Requests read a snapshot and never touch the database: the snapshot is reread
/// every `maxAge` (two seconds by default, so a key created or revoked with `kuroneko keys` while the server
/// runs takes effect within that) by a task of its own, started with ``startRefreshing()``. With `maxAge`
/// zero (tests) every read goes to the store.
public final class APIKeyRing: Sendable {
    private let store: any WatchStore
    private let maxAge: Duration
    private let snapshot = Snapshot()
    private let refresher = Mutex<Task<Void, Never>?>(nil)

    /// The keys last read. The refreshing task holds this, not the ring: a task holding the ring weakly
    /// would give the ring a side table, which every request's retain of it would then go through.
    private final class Snapshot: Sendable {
        private let keys = Mutex<[APIKeyRecord]>([])
        /// Whether `keys` is empty, readable without the lock (every request asks).
        private let empty = Atomic<Bool>(true)

        var current: [APIKeyRecord] { keys.withLock { $0 } }
        var isEmpty: Bool { empty.load(ordering: .acquiring) }

        func replace(with keys: [APIKeyRecord]) {
            self.keys.withLock { $0 = keys }
            empty.store(keys.isEmpty, ordering: .releasing)
        }
    }

    public init(store: any WatchStore, maxAge: Duration = .seconds(2)) {
        self.store = store
        self.maxAge = maxAge
        snapshot.replace(with: Self.load(store))
    }

    /// No key is active (as of the last read).
    public var isEmpty: Bool {
        if maxAge == .zero { return active().isEmpty }
        return snapshot.isEmpty
    }

    deinit {
        refresher.withLock { $0?.cancel() }
    }

    /// Rereads the keys every `maxAge` until the ring goes away (its deinit cancels the task).
    public func startRefreshing() {
        guard maxAge > .zero else { return }
        let task = Task { [store, snapshot, maxAge] in
            while !Task.isCancelled {
                try? await Task.sleep(for: maxAge)
                // A database out of reach keeps the keys last read: an outage must not open the API.
                guard !Task.isCancelled, let keys = try? Self.loadOrThrow(store) else { continue }
                snapshot.replace(with: keys)
            }
        }
        refresher.withLock { $0 = task }
    }

    /// The keys not revoked.
    public func active() -> [APIKeyRecord] {
        if maxAge == .zero, let keys = try? Self.loadOrThrow(store) {
            snapshot.replace(with: keys)
            return keys
        }
        return snapshot.current
    }

    private static func load(_ store: any WatchStore) -> [APIKeyRecord] {
        (try? loadOrThrow(store)) ?? []
    }

    private static func loadOrThrow(_ store: any WatchStore) throws -> [APIKeyRecord] {
        try store.keys().filter { $0.revokedAt == nil }
    }
}

/// Every `/v1` route needs `Authorization: Bearer KEY` once any key exists (or when keys are required);
/// health, readiness, metrics and the OpenAPI document stay open. The key is compared by its SHA-256 in
/// constant time. The calendar feed also takes its key's read-only calendar token as `?token=`. The owner
/// found becomes the request's principal; without keys everyone is the one local owner.
public struct APIKeyMiddleware: HTTPMiddleware {
    let ring: APIKeyRing
    let required: Bool

    public init(ring: APIKeyRing, required: Bool) {
        self.ring = ring
        self.required = required
    }

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        // By the first segment, as the router sees it (it skips empty segments: //v1//watches is /v1/watches).
        guard Self.firstSegmentIsV1(request.path) else { return nil }
        // Without keys (the usual local set-up) the snapshot is not even copied.
        let keys = required || !ring.isEmpty ? ring.active() : []
        if keys.isEmpty, !required {
            request.principal = WatchOwner.local.id
            return nil
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
        request.principal = match.owner.id
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
        var response = HTTPResponse.problem(
            status: 401, title: "Unauthorized", detail: detail, type: "https://kuroneko.invalid/problems/api-key")
        response.headers.append(("WWW-Authenticate", "Bearer"))
        return response
    }
}
