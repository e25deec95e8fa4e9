import KuronekoPostgres
import KuronekoWatch

/// Where the watch list lives, as `--db` / `KURONEKO_DB` names it: a `postgres://` or `postgresql://` URL
/// (several servers sharing one list), else the path of an SQLite file.
enum WatchStoreLocation {
    static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// The location as it may be printed: a URL's password hidden.
    static func shown(_ location: String) -> String {
        isPostgres(location) ? PostgresDatabase.redacted(location) : location
    }

    /// Opens (creating and migrating) the store.
    static func open(_ location: String) throws -> any WatchStore {
        isPostgres(location) ? try PostgresWatchStore(url: location) : try SQLiteWatchStore(path: location)
    }
}
