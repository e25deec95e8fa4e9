import Foundation
import KuronekoHTTP
import KuronekoStore

/// `GET /v1/watches/changes`: what changed in the owner's list after a cursor, so a page that holds the list
/// asks only for what changed. Without `since`, only the cursor to follow from (read it, then the list). With
/// `wait`, the answer waits up to that many seconds for a change newer than `seen` (a long poll: a page learns
/// of a change within about a second and an idle one asks twice a minute).
extension WatchRoutes {
    /// Changes an answer gives unless `limit` says fewer.
    static let changesPerAnswer = 500
    /// The longest an answer waits for a change.
    static let longestChangesWait = 25
    /// The most answers waiting for a change at once, on one server.
    static let changesWaitingLimit = 256
    /// The most of those one caller (a member, a key, or on an open API one address) holds: a page in a few tabs and
    /// on a few phones; one client opening more cannot take every slot.
    static let changesWaitingPerCaller = 8
    /// How often a waiting answer looks for a change (any server on the database may have made it).
    static let changesLookEvery: Duration = .seconds(1)

    func changes(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        let known: Set<String> = ["since", "limit", "wait", "seen"]
        if let unknown = request.query.first(where: { !known.contains($0.name) }) {
            throw RouteProblem.bad(
                "\"\(unknown.name.prefix(30))\" is not a parameter here; it takes since, seen, wait and limit")
        }
        let since = try Self.cursor(request, "since")
        let seen = try Self.cursor(request, "seen") ?? since
        var limit = Self.changesPerAnswer
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...WatchChanges.maximumLimit).contains(value) else {
                throw RouteProblem.bad("limit \"\(text.prefix(20))\" is not a number from 1 to \(WatchChanges.maximumLimit)")
            }
            limit = value
        }
        var wait = 0
        if let text = request.queryValue("wait") {
            guard let value = Int(text), (0...Self.longestChangesWait).contains(value) else {
                throw RouteProblem.bad(
                    "wait \"\(text.prefix(20))\" is not a number of seconds from 0 to \(Self.longestChangesWait)")
            }
            wait = since == nil ? 0 : value
        }
        let store = self.store
        var changes = try await store.changes(owner: owner, since: since, limit: limit, now: clock.now)
        // At most ``changesWaitingLimit`` answers wait at once, ``changesWaitingPerCaller`` of one caller; past
        // either one does not (the page pauses before asking again).
        let caller = Self.caller(of: request, owner: owner)
        if wait > 0, changes.latest <= seen ?? 0, changesWaiting.enter(key: caller) {
            defer { changesWaiting.leave(key: caller) }
            let deadline = clock.uptime + .seconds(wait)
            while changes.latest <= seen ?? 0, clock.uptime < deadline {
                // Cancelled (the server stopping, the client gone): answered with what there is.
                do { try await clock.sleep(until: min(deadline, clock.uptime + Self.changesLookEvery)) } catch { break }
                changes = try await store.changes(owner: owner, since: since, limit: limit, now: clock.now)
            }
        }
        return .jsonData(try await body(of: changes, owner: owner))
    }

    /// Who is asking, for their share of the waiting answers: the signed-in member, else the key, else (an API open
    /// to everyone, where every device is the one owner) the connection's address.
    static func caller(of request: HTTPRequest, owner: WatchOwner) -> String {
        if let member = request.caller.memberID { return "member:\(member)" }
        if let key = request.caller.key { return key }
        return "list:\(owner.id) address:\(request.client)"
    }

    private static func cursor(_ request: HTTPRequest, _ name: String) throws -> Int64? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw RouteProblem.bad(
                "\(name) \"\(text.prefix(20))\" is not a cursor this server gave; use the cursor of the last answer")
        }
        return value
    }

    private func body(of changes: WatchChanges, owner: WatchOwner) async throws -> Data {
        var body = Data(#"{"cursor":"#.utf8)
        body.append(Data(String(changes.cursor).utf8))
        body.append(Data(#","latest":"#.utf8))
        body.append(Data(String(changes.latest).utf8))
        body.append(Data(#","more":"#.utf8))
        body.append(Data((changes.more ? "true" : "false").utf8))
        body.append(Data(#","watches":["#.utf8))
        for (index, watch) in changes.watches.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(WatchJSON.encode(watch))
        }
        body.append(Data(#"],"removed":["#.utf8))
        for (index, number) in changes.removed.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            WatchJSON.appendString(&body, number)
        }
        body.append(Data(#"],"summary":"#.utf8))
        // The counts come along when something changed: the page's chips follow without asking again.
        if changes.watches.isEmpty && changes.removed.isEmpty {
            body.append(Data("null".utf8))
        } else {
            let (store, now) = (self.store, clock.now)
            body.append(Self.object(try await store.watchSummary(owner: owner, matching: WatchQuery(), now: now).json))
        }
        body.append(UInt8(ascii: "}"))
        return body
    }
}
