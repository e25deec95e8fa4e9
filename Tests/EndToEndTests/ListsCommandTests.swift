import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// `kuroneko lists`, `--list`, and what `users` and `keys` make of them: a command-line key is a list of its own
/// that the first account administers; a new list takes parcels, members and keys by name or id; a name that is
/// no list, or two lists' name, is refused with what would do.
@Suite("kuroneko lists and --list", .timeLimit(.minutes(5)))
struct ListsCommandTests {
    @Test func listsAndMembers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lists-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("list.sqlite").path
        let store = try SQLiteWatchStore(path: database)
        let home = try TrackingNumber(parsing: "312345678901")
        _ = try await store.add(home, carrier: .yamato, label: "家", owner: .local, webhook: nil, now: Date())

        let key = try await KuronekoBinary.run(["keys", "create", "--name", "mama", "--db", database])
        #expect(key.status == 0, "\(key.standardError)")
        let first = try await KuronekoBinary.run(["users", "add", "papa", "--db", database], input: "papa-password\n")
        #expect(first.standardOutput.contains("admin of Kuroneko") && first.standardOutput.contains("admin of mama"),
            "\(first.standardOutput)\(first.standardError)")

        let made = try await KuronekoBinary.run(["lists", "create", "実家", "--admin", "papa", "--db", database])
        #expect(made.status == 0 && made.standardOutput.contains("papa its admin"), "\(made.standardError)")
        let listID = try #require(made.standardOutput.firstMatch(of: /\((list:[0-9a-f]{16})\)/)?.1).description

        // A parcel added to the new list by its name is there, and only there.
        let parents = try TrackingNumber(parsing: "412345678905")
        _ = try await KuronekoBinary.run([
            "add", parents.digits, "--list", "実家", "--label", "お米", "--db", database, "--endpoint", "http://127.0.0.1:9",
        ])
        #expect(try await store.watch(parents, owner: WatchOwner(id: listID))?.label == "お米")
        #expect(try await store.watch(parents, owner: .local) == nil)
        let shown = try await KuronekoBinary.run(["list", "--list", listID, "--db", database, "--all"])
        #expect(shown.standardOutput.contains("お米") && !shown.standardOutput.contains("家 "), "\(shown.standardOutput)")

        let viewer = try await KuronekoBinary.run(
            ["users", "add", "kenta", "--list", "実家", "--role", "viewer", "--db", database], input: "kenta-password\n")
        #expect(viewer.standardOutput == "added kenta: viewer of 実家\n", "\(viewer.standardOutput)\(viewer.standardError)")
        let staffKey = try await KuronekoBinary.run(
            ["keys", "create", "--name", "packing", "--list", "local", "--role", "staff", "--db", database])
        #expect(staffKey.status == 0, "\(staffKey.standardError)")
        let keys = try await KuronekoBinary.run(["keys", "list", "--db", database])
        #expect(keys.standardOutput.contains("packing") && keys.standardOutput.contains("list local as staff"))
        #expect(keys.standardOutput.contains("mama") && keys.standardOutput.contains("its own list key:1"))
        let lists = try await KuronekoBinary.run(["lists", "--db", database])
        #expect(lists.standardOutput.contains("local  Kuroneko  1 parcel(s)  papa (admin)"), "\(lists.standardOutput)")
        #expect(lists.standardOutput.contains("\(listID)  実家  1 parcel(s)  kenta (viewer), papa (admin)"))

        // Refusals name the input and what would do; nothing is made.
        for (arguments, message) in [
            (["list", "--list", "nosuch"], "no list is named or numbered \"nosuch\"; kuroneko lists shows them"),
            (["keys", "create", "--name", "x", "--role", "staff"], "--role is what the key may do in the list --list names"),
            (["lists", "create", "a\u{7}b"], "is not a list name"),
            (["lists", "create", "店", "--admin", "nobody"], "no account named \"nobody\""),
            (["import", "sheet.csv", "--list", "実家"], "--list names the list --watch adds to; add --watch"),
        ] {
            let refused = try await KuronekoBinary.run(arguments + ["--db", database])
            #expect(refused.status == 2 && refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
        }
        _ = try await KuronekoBinary.run(["lists", "create", "実家", "--db", database])
        let twice = try await KuronekoBinary.run(["list", "--list", "実家", "--db", database])
        #expect(twice.status == 2 && twice.standardError.contains("2 lists are named \"実家\"; give one's id"))
        #expect(try await store.keys().count == 2)
    }
}
