import Foundation
import KuronekoHTTP
import KuronekoStore

/// `GET /v1/watches/changes`: what changed in the owner's list after a cursor, so a page that holds the list
/// asks only for what changed. Without `since`, only the cursor to follow from (read it, then the list).
extension WatchRoutes {
    /// Changes an answer gives unless `limit` says fewer.
    static let changesPerAnswer = 500

    func changes(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        let known: Set<String> = ["since", "limit"]
        if let unknown = request.query.first(where: { !known.contains($0.name) }) {
            throw RouteProblem.bad("\"\(unknown.name.prefix(30))\" is not a parameter here; it takes since and limit")
        }
        var since: Int64?
        if let text = request.queryValue("since") {
            guard let value = Int64(text), value >= 0 else {
                throw RouteProblem.bad(
                    "since \"\(text.prefix(20))\" is not a cursor this server gave; use the cursor of the last answer")
            }
            since = value
        }
        var limit = Self.changesPerAnswer
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...WatchChanges.maximumLimit).contains(value) else {
                throw RouteProblem.bad("limit \"\(text.prefix(20))\" is not a number from 1 to \(WatchChanges.maximumLimit)")
            }
            limit = value
        }
        let (store, now) = (self.store, clock.now)
        let changes = try await store.changes(owner: owner, since: since, limit: limit, now: now)
        var body = Data(#"{"cursor":"#.utf8)
        body.append(Data(String(changes.cursor).utf8))
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
            body.append(Self.object(try await store.watchSummary(owner: owner, matching: WatchQuery(), now: now).json))
        }
        body.append(UInt8(ascii: "}"))
        return .jsonData(body)
    }
}
