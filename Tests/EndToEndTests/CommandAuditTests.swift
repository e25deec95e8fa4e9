import Foundation
import Kuroneko
import KuronekoStore
import KuronekoTestSupport
import Testing

/// What the command line changes is in the list's audit log as the web app's changes are, under the name of the
/// person who ran it (`tencho (command line)`), bulk changes with their numbers.
@Suite("the command line's changes in the audit log", .serialized, .timeLimit(.minutes(10)))
struct CommandAuditTests {
    @Test("add, remove, import --watch and keys: each a line naming who ran it and what it touched")
    func audited() async throws {
        let numbers = ValidNumbers.numbers(4)
        let simulator = try await ServerProcess(["simulate", "--speed", "0", "--start", "2026-12-06T08:00:00+09:00"])
        defer { simulator.terminate() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let database = work.appendingPathComponent("watch.sqlite").path
        let environment = [
            "KURONEKO_DB": database, "KURONEKO_ENDPOINT": "yamato=\(simulator.baseURL)/cgi-bin/tneko",
            "KURONEKO_MIN_INTERVAL": "0",
        ]
        func run(_ arguments: [String]) async throws {
            let done = try await KuronekoBinary.run(arguments, environment: environment)
            #expect(done.status == 0, "\(arguments): \(done.standardError)")
        }
        try await run(["add", "--carrier", "yamato", numbers[0].digits, numbers[1].digits])
        try await run(["remove", numbers[0].digits])
        let sheet = work.appendingPathComponent("labels.csv")
        try Data("注文番号,伝票番号\nA-1,\(numbers[2].digits)\nA-2,\(numbers[3].digits)\n".utf8).write(to: sheet)
        try await run(["import", "--watch", "--carrier", "yamato", "-q", sheet.path])
        try await run(["keys", "create", "--name", "shop-system"])

        let store = try SQLiteWatchStore(path: database)
        let log = try await store.auditLog(list: "local", before: nil, limit: 20)
        let user = NSUserName()
        #expect(!log.isEmpty && log.allSatisfy { $0.actor == "\(user) (command line)" }, "\(log.map(\.actor))")
        let lines = Set(log.map { "\($0.action): \($0.detail)" })
        #expect(lines.contains("added: 2 parcels: \(numbers[0].formatted), \(numbers[1].formatted)"), "\(lines)")
        #expect(lines.contains("removed: 1 parcel: \(numbers[0].formatted)"), "\(lines)")
        #expect(lines.contains("imported: 2 parcels of 2 rows"), "\(lines)")
        #expect(lines.contains("key_made: shop-system"), "\(lines)")
    }
}
