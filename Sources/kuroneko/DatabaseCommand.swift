import Foundation
import KuronekoServer
import KuronekoStore

/// `kuroneko db status` and `kuroneko db backup FILE`: the watch list's database for its operator.
struct DatabaseCommand: ArgumentsCommand {
    static let spec = CommandCatalog.db
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let location = arguments.text(.db) ?? SQLiteWatchStore.defaultPath(environment: terminal.environment)
        let action = arguments.operands.first ?? "status"
        if action == "backup" {
            guard arguments.operands.count == 2, !arguments.operands[1].isEmpty else {
                throw CommandFailure.usage("db: usage: kuroneko db backup FILE (a new file for the copy)")
            }
            guard !FileManager.default.fileExists(atPath: arguments.operands[1]) else {
                throw CommandFailure.usage(
                    "db: \(arguments.operands[1]) exists already; give the backup a new file's path")
            }
            guard !DatabaseLocation.isPostgres(location) else {
                throw CommandFailure.usage(
                    "db: the watch list \(DatabaseLocation.shown(location)) is on PostgreSQL; back it up with "
                        + "pg_dump, e.g. pg_dump --format=custom --file=kuroneko.dump '\(DatabaseLocation.shown(location))'"
                )
            }
        } else if arguments.operands.count > 1 {
            throw CommandFailure.usage("db: unexpected argument '\(arguments.operands[1])'; usage: kuroneko db status")
        }
        guard DatabaseLocation.isPostgres(location) || FileManager.default.fileExists(atPath: location) else {
            throw CommandFailure.usage(
                "db: there is no watch list at \(location); give its path with --db (or KURONEKO_DB)")
        }
        let store: any WatchStore
        do {
            store = try DatabaseLocation.open(location) { [terminal] line in terminal.printError("kuroneko: \(line)") }
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure("db", location, error))
        }
        if action == "backup" {
            try await backup(store, to: arguments.operands[1])
        } else {
            try await status(store, location: location)
        }
    }

    private func status(_ store: any WatchStore, location: String) async throws {
        let summary = try await store.summary()
        terminal.print(
            """
            engine: \(summary.engine)
            location: \(DatabaseLocation.shown(location))
            schema version: \(summary.schemaVersion) (this kuroneko knows up to \(SchemaVersions.latest))
            watches: \(summary.activeWatches) active, \(summary.finishedWatches) finished
            shipments: \(summary.shipments)
            events: \(summary.events)
            changes: \(summary.changes)
            webhook deliveries pending: \(summary.pendingDeliveries)
            API keys: \(summary.activeKeys) active
            """)
    }

    private func backup(_ store: any WatchStore, to path: String) async throws {
        let check: [String]
        do {
            check = try await store.backup(to: path)
        } catch {
            throw CommandFailure.lookup("db: backup to \(path) failed: \(error)")
        }
        guard check == ["ok"] else {
            throw CommandFailure.lookup(
                "db: the copy at \(path) fails its integrity check: \(check.prefix(3).joined(separator: "; "))")
        }
        let summary = try await store.summary()
        let watches = summary.activeWatches + summary.finishedWatches
        terminal.print(
            "backup written to \(path): schema version \(summary.schemaVersion), "
                + "\(watches) \(watches == 1 ? "watch" : "watches"); integrity check ok")
    }
}
