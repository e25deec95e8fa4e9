import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing

@testable import kuroneko

/// The watch-list commands as a person runs them, against `kuroneko simulate` on 127.0.0.1, each run on a
/// database of its own.
@Suite("watch lists on the command line", .timeLimit(.minutes(10)))
struct WatchCommandLineTests {
    private static func database() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).sqlite").path
    }

    @Test("add, list, show, remove, refresh on the local file")
    func addListRemove() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let environment = ["KURONEKO_DB": Self.database(), "KURONEKO_ENDPOINT": simulator.baseURL + "/cgi-bin/tneko"]
        let numbers = ValidNumbers.numbers(2, from: 71_000_000_000)
        let added = try await KuronekoBinary.run(
            ["add", "--label", "靴", numbers[0].formatted, numbers[1].formatted], environment: environment)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains(numbers[0].formatted) && added.standardOutput.contains("靴"))
        let listed = try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment)
        let watches = try JSON(data: Data(listed.standardOutput.utf8)).elements
        #expect(watches.count == 2)
        #expect(watches.allSatisfy { $0["checked_at"] != .null && $0["shipment"] != .null })
        // The API's shape exactly: the keys of GET /v1/watches/{number}.
        #expect(
            watches.allSatisfy { watch in
                guard case .object(let fields) = watch else { return false }
                return fields.keys.sorted() == [
                    "active", "carrier", "checked_at", "created_at", "family", "label", "missed_delivery", "number",
                    "overdue_since", "page_not_understood_since", "planned_day", "record", "shipment", "source",
                    "stalled_since", "webhook_ended", "webhook_url",
                ]
            }, "\(listed.standardOutput.prefix(300))")
        let shown = try await KuronekoBinary.run(["show", numbers[0].formatted], environment: environment)
        #expect(shown.status == 0 && shown.standardOutput.contains("changes:"))
        #expect(try await KuronekoBinary.run(["refresh", "-q"], environment: environment).status == 0)
        #expect(try await KuronekoBinary.run(["remove", numbers[1].digits], environment: environment).status == 0)
        let after = try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment)
        #expect(try JSON(data: Data(after.standardOutput.utf8)).elements.count == 1)
        let missing = try await KuronekoBinary.run(["show", numbers[1].formatted], environment: environment)
        #expect(missing.status == 2 && missing.standardError.contains("is not on the watch list"))
        let mode = try FileManager.default.attributesOfItem(atPath: environment["KURONEKO_DB"]!)[.posixPermissions]
        #expect(mode as? Int == 0o600)
    }

    @Test(
        "keys: created once, listed, revoked (the last one closes the API, keys open opens it); a duplicate name is refused"
    )
    func keys() async throws {
        let environment = ["KURONEKO_DB": Self.database()]
        let created = try await KuronekoBinary.run(["keys", "create", "--name", "shop"], environment: environment)
        #expect(created.status == 0)
        #expect(
            created.standardOutput.wholeMatch(of: /key shop: kn_[0-9a-f]{64}\ncalendar token: cal_[0-9a-f]{32}\n.*\n/)
                != nil)
        let again = try await KuronekoBinary.run(["keys", "create", "--name", "shop"], environment: environment)
        #expect(again.status == 2 && again.standardError.contains("exists already"))
        let revoked = try await KuronekoBinary.run(["keys", "revoke", "shop"], environment: environment)
        #expect(revoked.status == 0)
        #expect(
            revoked.standardOutput.contains("the last active key: the API is now closed"), "\(revoked.standardOutput)")
        let opened = try await KuronekoBinary.run(["keys", "open"], environment: environment)
        #expect(opened.status == 0 && opened.standardOutput.contains("open to everyone"))
        let listed = try await KuronekoBinary.run(["keys", "list"], environment: environment)
        #expect(listed.standardOutput.contains("shop") && listed.standardOutput.contains("revoked"))
        #expect(!listed.standardOutput.contains("kn_"), "a key is never shown again")
    }

    @Test("watch runs until every parcel is finished, printing each change and running --exec with its JSON")
    func watchUntilDelivered() async throws {
        // A fixed start (a weekday morning in Japan), not the wall clock: which parcels are on their way when they are
        // added must not depend on the hour the suite runs at.
        // Started standing still: a simulator that ran while a loaded machine started it would have moved on by
        // hours before anything was added.
        let simulator = try await ServerProcess(["simulate", "--speed", "0", "--start", "2026-12-02T08:00:00+09:00"])
        defer { simulator.terminate() }
        // The simulated clock stands still while the parcels are added and until `watch` has made its first check
        // (however long starting it takes on a loaded machine), then runs at 1,500 times: a journey is then about
        // two minutes, and every change after the first check is printed.
        let clock = simulator.baseURL + "/admin/clock"
        #expect(try await HTTPClient.send("PUT", clock, body: #"{"speed": 0}"#).status == 200)
        let environment = ["KURONEKO_DB": Self.database(), "KURONEKO_ENDPOINT": simulator.baseURL + "/cgi-bin/tneko"]
        let numbers = ValidNumbers.numbers(3)
        #expect(try await KuronekoBinary.run(["add"] + numbers.map(\.formatted), environment: environment).status == 0)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID().uuidString).jsonl")
        // Read as an integer, not through `JSON`, which takes a count of 0 or 1 for a boolean.
        func posts() async throws -> Int {
            let body = try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").body
            return ((try JSONSerialization.jsonObject(with: body)) as? [String: Any])?["posts"] as? Int ?? 0
        }
        let before = try await posts()
        let watching = Task {
            try await KuronekoBinary.run(
                ["watch", "--interval", "1s", "--exec", "cat >> '\(log.path)'; echo >> '\(log.path)'"],
                environment: environment)
        }
        #expect(try await eventually { try await posts() > before }, "watch never made its first check")
        #expect(try await HTTPClient.send("PUT", clock, body: #"{"speed": 1500}"#).status == 200)
        let outcome = try await watching.value
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("every watched parcel is finished"))
        #expect(!outcome.standardError.contains("--exec command"), "every command ran and exited 0")
        let printed = outcome.standardOutput.split(separator: "\n")
        #expect(!printed.isEmpty && printed.allSatisfy { $0.contains(" → ") })
        let changes = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map {
            try JSON(data: Data($0.utf8))
        }
        #expect(changes.count == printed.count)
        #expect(changes.allSatisfy { $0["type"] == .string("shipment.status_changed") && $0["previous"] != nil })
        let listed = try await KuronekoBinary.run(["list", "--json"], environment: environment)
        #expect(try JSON(data: Data(listed.standardOutput.utf8)).elements.isEmpty, "nothing left on its way")
    }

    @Test("import: 1,000 numbers from a CSV column in order, a bad row reported and skipped, ten numbers a POST")
    func importCSV() async throws {
        let simulator = try await ServerProcess(["simulate"])
        defer { simulator.terminate() }
        let numbers = ValidNumbers.numbers(1_000, from: 81_000_000_000)
        var csv = "order,tracking_no\r\n"
        for (index, number) in numbers.enumerated() { csv += "A\(index),\(number.formatted)\r\n" }
        csv += "broken,\"12, oops\"\r\n"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("orders-\(UUID().uuidString).csv")
        try csv.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try await KuronekoBinary.runAside([
            "import", file.path, "--column", "tracking_no", "--endpoint", simulator.baseURL + "/cgi-bin/tneko",
            "--min-interval", "0.05",
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // Ten numbers a POST: 100 POSTs for 1,000 numbers (their pacing is proved on the injected clock, in
        // SchedulerStateMachineTests).
        let stats = try JSON(data: try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").body)
        #expect(stats["posts"] == .number(100), "\(stats)")
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.first == "order,tracking_no," + TrackingColumns.japaneseNames.joined(separator: ","))
        #expect(
            lines.dropFirst().prefix(numbers.count).map { String($0.split(separator: ",")[1]) }
                == numbers.map(\.formatted))
        #expect(lines.last?.hasPrefix("broken,\"12, oops\",,,,,,,,,,\"row 1002: ") == true, "\(lines.last ?? "")")
        let errors = outcome.standardError.split(separator: "\n")
        #expect(errors.first?.hasPrefix("kuroneko: row 1002: \"12, oops\" contains \",\"") == true)
        #expect(
            errors.count == 2 && errors.last?.hasPrefix("kuroneko: import: 1,001 rows: 1,000 numbers tracked") == true)
        let posts = try JSON(data: try await HTTPClient.send("GET", simulator.baseURL + "/admin/stats").body)["posts"]
        #expect(posts == .number(100), "ten numbers per POST")
    }
}

/// `kuroneko show` says whom to call when the carrier's page asks the person to get in touch.
@Suite("show: what to do next")
struct ShowWhatToDoTests {
    @Test("a Sagawa parcel under investigation shows its ship date and the offices to call with their telephones")
    func officesToCall() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("show-\(UUID().uuidString).sqlite").path
        let store = try SQLiteWatchStore(path: path)
        let number = try TrackingNumber(parsing: "4109-3370-8124")
        let now = Date()
        _ = try await store.add(number, carrier: .sagawa, label: "返品", owner: .local, webhook: nil, now: now)
        var shipment = Shipment(
            trackingNumber: number, carrier: .sagawa,
            status: ShipmentStatus(
                code: .exception, label: "調査中", labelEnglish: "Under investigation",
                summary: "恐れ入りますが、営業所へお問い合わせください。", note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        shipment.shipDate = JapanDateTime(year: 2026, month: 8, day: 7)
        shipment.offices = [
            CarrierOffice(role: "集荷", name: "西埼玉営業所", telephone: "0570-55-0421"),
            CarrierOffice(role: "配達", name: "荒川営業所", telephone: "0570-01-0659"),
        ]
        try await store.record(shipment, fetchedAt: now) { _, _ in now }
        let shown = try await KuronekoBinary.run(["show", number.formatted, "--db", path])
        #expect(shown.status == 0, "\(shown.standardError)")
        let lines = shown.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("出荷日 2026-08-07"), "\(lines)")
        #expect(lines.contains("お問い合わせ先:"), "\(lines)")
        #expect(lines.contains("  配達  荒川営業所  0570-01-0659"), "\(lines)")
        #expect(lines.contains("  集荷  西埼玉営業所  0570-55-0421"), "\(lines)")
    }
}
