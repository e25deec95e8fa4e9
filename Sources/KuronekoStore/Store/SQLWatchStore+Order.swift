import Foundation
import Kuroneko

/// A list read in a person's order (``WatchOrder``) at any offset: the table of the web app, and a download
/// in the order on screen.
extension SQLWatchStore {
    public func watches(
        owner: WatchOwner, matching query: WatchQuery, ordered order: WatchOrder, offset: Int, limit: Int, now: Date
    ) async throws -> (watches: [Watch], total: Int) {
        let (conditions, arguments) = query.conditions(now: now, match: database.textMatch)
        let owned = query.ownerCondition(match: database.textMatch)
        let filtered = [SQLValue.text(owner.id)] + arguments
        // The ids first, sorted on the indexed columns alone (the sort then carries a few bytes a row, not
        // every row's shipment), then those rows whole.
        let (ids, total, rows) = try await database.read { connection in
            let ids = try connection.run(
                "SELECT w.id FROM watches w WHERE " + owned + conditions + " ORDER BY " + order.sql
                    + " LIMIT ? OFFSET ?",
                filtered + [.integer(Int64(max(0, limit))), .integer(Int64(max(0, offset)))]
            ).map { Int64(try $0.requiredInt("id")) }
            let total = try Self.scalar(
                connection.run("SELECT COUNT(*) AS n FROM watches w WHERE " + owned + conditions, filtered))
            let rows = try Self.rows(ids, owner: owner, connection: connection)
            return (ids, total, rows)
        }
        return (try Self.inOrder(ids, rows: rows), total)
    }

    public func watchIDs(owner: WatchOwner, matching query: WatchQuery, ordered order: WatchOrder, limit: Int, now: Date)
        async throws -> [Int64]
    {
        let (conditions, arguments) = query.conditions(now: now, match: database.textMatch)
        let owned = query.ownerCondition(match: database.textMatch)
        return try await database.read { connection in
            try connection.run(
                "SELECT w.id FROM watches w WHERE " + owned + conditions + " ORDER BY " + order.sql + " LIMIT ?",
                [.text(owner.id)] + arguments + [.integer(Int64(max(0, limit)))]
            ).map { Int64(try $0.requiredInt("id")) }
        }
    }

    public func watches(owner: WatchOwner, ids: [Int64]) async throws -> [Watch] {
        let rows = try await database.read { connection in try Self.rows(ids, owner: owner, connection: connection) }
        return try Self.inOrder(ids, rows: rows)
    }

    /// The owner's watches among `ids` (at most a few hundred at a time), in no order.
    private static func rows(_ ids: [Int64], owner: WatchOwner, connection: Database.Connection) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(ids.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            rows += try connection.run(
                watchColumns + " WHERE w.owner = ? AND w.id IN (\(marks))",
                [.text(owner.id)] + chunk.map(SQLValue.integer))
        }
        return rows
    }

    /// The watches of `rows` in the order of `ids` (an id whose watch went in between is left out).
    private static func inOrder(_ ids: [Int64], rows: [SQLRow]) throws -> [Watch] {
        var byID: [Int64: Watch] = [:]
        for row in rows {
            let watch = try watch(from: row)
            byID[watch.id] = watch
        }
        return ids.compactMap { byID[$0] }
    }
}
