import Foundation
import Kuroneko

/// What changed in an owner's list since a cursor: each watch carries its place in one sequence of changes
/// (bumped by the database, on both engines, when a column a person sees changes), and removals are kept
/// for ``WatchChanges/removalsKept``.
extension SQLWatchStore {
    public func changes(owner: WatchOwner, since cursor: Int64?, limit: Int, now: Date) async throws -> WatchChanges {
        let limit = max(1, min(limit, WatchChanges.maximumLimit))
        let settle = Database.changesSettle
        return try await database.read { connection in
            let floor = try Self.scalar(
                connection.run(
                    "SELECT COALESCE(MAX(seq), 0) AS n FROM watch_removals_forgotten WHERE owner = ?", [.text(owner.id)]))
            let latest = try Self.latestChange(owner: owner, before: nil, on: connection)
            guard let cursor else {
                // Where to follow from: the latest change old enough that nothing numbered before it is unwritten.
                let settled = settle == 0 ? nil : now.timeIntervalSince1970 - settle
                let start = try Self.latestChange(owner: owner, before: settled, on: connection)
                return WatchChanges(cursor: start, watches: [], removed: [], more: false)
            }
            if cursor < Int64(floor) { throw WatchStoreError.changesForgotten(cursor) }
            if cursor > latest { throw WatchStoreError.changesAhead(cursor) }
            // The watches changed after the cursor, and the removals, merged in order, up to `limit`.
            let changed = try connection.run(
                "SELECT w.changed_seq, w.changed_at, " + Self.watchColumns.dropFirst("SELECT ".count)
                    + " WHERE w.owner = ? AND w.changed_seq > ? ORDER BY w.changed_seq LIMIT ?",
                [.text(owner.id), .integer(cursor), .integer(Int64(limit + 1))])
            let removed = try connection.run(
                "SELECT seq, number, removed_at FROM watch_removals WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?",
                [.text(owner.id), .integer(cursor), .integer(Int64(limit + 1))])
            var entries: [(seq: Int64, at: Double, watch: Watch?, number: String?)] = []
            for row in changed {
                entries.append(
                    (Int64(try row.requiredInt("changed_seq")), try row.double("changed_at") ?? 0, try Self.watch(from: row), nil))
            }
            for row in removed {
                entries.append(
                    (Int64(try row.requiredInt("seq")), try row.double("removed_at") ?? 0, nil, try row.requiredText("number")))
            }
            entries.sort { $0.seq < $1.seq }
            let more = entries.count > limit
            let kept = entries.prefix(limit)
            // The cursor stops before a change too recent to be sure nothing numbered before it is still being
            // written (PostgreSQL numbers a change before its transaction commits): those come again next time.
            let settled = now.timeIntervalSince1970 - settle
            var next = cursor
            for entry in kept {
                guard settle == 0 || entry.at <= settled else { break }
                next = entry.seq
            }
            // A watch changed again after its removal is not removed; one removed after its change is.
            var watches: [String: Watch] = [:]
            var removedNumbers: [String: Int64] = [:]
            for entry in kept {
                if let watch = entry.watch {
                    watches[watch.number.digits] = watch
                    removedNumbers[watch.number.digits] = nil
                } else if let number = entry.number {
                    watches[number] = nil
                    removedNumbers[number] = entry.seq
                }
            }
            return WatchChanges(
                cursor: next, latest: kept.last?.seq,
                watches: kept.compactMap(\.watch).filter { watches[$0.number.digits] != nil },
                removed: removedNumbers.sorted { $0.value < $1.value }.map(\.key), more: more)
        }
    }

    /// The owner's latest change (made before `before`, when given): the highest of its watches' and its
    /// removals' places in the sequence, each read from the end of its index.
    private static func latestChange(owner: WatchOwner, before: Double?, on connection: Database.Connection) throws
        -> Int64
    {
        let time: (String, [SQLValue]) = before.map { (" AND changed_at <= ?", [.real($0)]) } ?? ("", [])
        let watches = try connection.run(
            "SELECT changed_seq AS n FROM watches WHERE owner = ?" + time.0 + " ORDER BY changed_seq DESC LIMIT 1",
            [.text(owner.id)] + time.1)
        let removalTime = before.map { _ in time.0.replacingOccurrences(of: "changed_at", with: "removed_at") } ?? ""
        let removals = try connection.run(
            "SELECT seq AS n FROM watch_removals WHERE owner = ?" + removalTime + " ORDER BY seq DESC LIMIT 1",
            [.text(owner.id)] + time.1)
        return Int64(max(try scalar(watches), try scalar(removals)))
    }

    public func forgetRemovals(before: Date, limit: Int) async throws -> Int {
        try await database.write { connection in
            let rows = try connection.run(
                "SELECT seq, owner FROM watch_removals WHERE removed_at < ? ORDER BY seq LIMIT ?",
                [.real(before.timeIntervalSince1970), .integer(Int64(max(1, limit)))])
            var highest: [String: Int64] = [:]
            for row in rows {
                let owner = try row.requiredText("owner")
                highest[owner] = max(highest[owner] ?? 0, Int64(try row.requiredInt("seq")))
            }
            // What an owner's cursor must be past to be followed: the last removal forgotten.
            for (owner, seq) in highest {
                try connection.run(
                    """
                    INSERT INTO watch_removals_forgotten (owner, seq) VALUES (?, ?)
                    ON CONFLICT (owner) DO UPDATE SET seq = excluded.seq WHERE excluded.seq > watch_removals_forgotten.seq
                    """, [.text(owner), .integer(seq)])
                try connection.run(
                    "DELETE FROM watch_removals WHERE owner = ? AND seq <= ?", [.text(owner), .integer(seq)])
            }
            return rows.count
        }
    }
}
