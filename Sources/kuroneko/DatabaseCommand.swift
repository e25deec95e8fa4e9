import ArgumentParser
import Foundation
import KuronekoServer
import KuronekoStore

/// `kuroneko db status` and `kuroneko db backup FILE`: the watch list's database for its operator.
struct DatabaseCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "db", usage: "status | backup FILE", summary: "the watch list's database: what it holds, a backup",
        description: [
            "`db status` prints the engine, the schema version and how many watches, shipments, changes, pending "
                + "webhook deliveries and active keys the database holds. `db backup FILE` writes a copy of an "
                + "SQLite watch list to a new FILE with SQLite's online backup, safe while `kuroneko serve` uses "
                + "it, and checks the copy (PRAGMA integrity_check). A PostgreSQL watch list is backed up with "
                + "pg_dump."
        ],
        examples: [
            ("kuroneko db status", "what the default watch list holds"),
            (
                "kuroneko db backup /var/backups/kuroneko-$(date +%F).sqlite --db /var/lib/kuroneko/kuroneko.sqlite",
                "a copy of the service's database while it runs"
            ),
        ])

    @OptionGroup var database: DatabaseOption
    @Argument(
        help: .about("status, or backup and the new file's path", value: "ACTION"),
        completion: .list(["status", "backup"]))
    var operands: [String] = []

    func run(on terminal: Terminal) async throws {
        let location =
            reader(terminal).text(database.db, .database) ?? SQLiteWatchStore.defaultPath(environment: terminal.environment)
        let action = operands.first ?? "status"
        if action == "backup" {
            guard operands.count == 2, !operands[1].isEmpty else {
                throw CommandFailure.usage("db: usage: kuroneko db backup FILE (a new file for the copy)")
            }
            guard !FileManager.default.fileExists(atPath: operands[1]) else {
                throw CommandFailure.usage(
                    "db: \(operands[1]) exists already; give the backup a new file's path")
            }
            guard !DatabaseLocation.isPostgres(location) else {
                throw CommandFailure.usage(
                    "db: the watch list \(DatabaseLocation.shown(location)) is on PostgreSQL; back it up with "
                        + "pg_dump, e.g. pg_dump --format=custom --file=kuroneko.dump '\(DatabaseLocation.shown(location))'"
                )
            }
        } else if operands.count > 1 {
            throw CommandFailure.usage("db: unexpected argument '\(operands[1])'; usage: kuroneko db status")
        }
        guard DatabaseLocation.isPostgres(location) || FileManager.default.fileExists(atPath: location) else {
            throw CommandFailure.usage(
                "db: there is no watch list at \(location); give its path with --db (or KURONEKO_DB)")
        }
        let store: any WatchStore
        do {
            store = try DatabaseLocation.open(location, log: terminal.notices)
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure("db", location, error))
        }
        if action == "backup" {
            try await backup(on: terminal, store, to: operands[1])
        } else {
            try await status(on: terminal, store, location: location)
        }
    }

    private func status(on terminal: Terminal, _ store: any WatchStore, location: String) async throws {
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

    private func backup(on terminal: Terminal, _ store: any WatchStore, to path: String) async throws {
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
