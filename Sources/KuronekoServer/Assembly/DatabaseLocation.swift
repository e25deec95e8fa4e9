import Foundation
import Logging
import KuronekoPostgres
import KuronekoStore

/// Where the watch list lives, as `--db` / `KURONEKO_DB` names it: a `postgres://` or `postgresql://` URL
/// (several servers sharing one list), else the path of an SQLite file.
public enum DatabaseLocation {
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// The location as it may be printed: a URL's password hidden.
    public static func shown(_ location: String) -> String {
        location.contains("://") ? PostgresDatabase.redacted(location) : location
    }

    /// Opens (creating and migrating) the store; `log` is told what each migration does before it runs.
    /// - Parameter maxWatchesPerOwner: the most watches an owner may have (`--max-watches-per-owner`).
    public static func open(
        _ location: String, maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner,
        unregisteredGrace: TimeInterval = WatchLimits.unregisteredGrace,
        log: Logger
    ) throws -> any ListStore {
        if isPostgres(location) {
            return try PostgresWatchStore(
                url: location, log: log, maxWatchesPerOwner: maxWatchesPerOwner,
                unregisteredGrace: unregisteredGrace)
        }
        // Any other URL is a mistake, not a file to create.
        if let scheme = location.range(of: "://").map({ location[..<$0.lowerBound] }), !scheme.contains("/") {
            throw UnknownLocation(
                description: "--db \"\(scheme)://…\" is not a database this can use; give a postgres:// URL "
                    + "or the path of an SQLite file")
        }
        return try SQLiteWatchStore(
            path: location, log: log, maxWatchesPerOwner: maxWatchesPerOwner,
            unregisteredGrace: unregisteredGrace)
    }

    /// The one line for a store that cannot be opened: a newer schema says so by itself.
    public static func failure(_ command: String, _ location: String, _ error: any Error) -> String {
        if let newer = error as? NewerSchemaError { return "\(command): \(newer)" }
        return "\(command): the watch list \(shown(location)) cannot be opened: \(error)"
    }

    public struct UnknownLocation: Error, CustomStringConvertible {
        public let description: String
    }
}
