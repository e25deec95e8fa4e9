import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

/// The sheets shops have (`Tests/Fixtures/sheets`), imported by `kuroneko import --watch` as a shop at a terminal
/// would: the layout named, every number watched at the carrier the sheet says with its reference, recipient and
/// ship date; an export without numbers refused in one line naming the one to use. Against `kuroneko simulate`.
@Suite("import: the sheets shops have, from the command line", .serialized, .timeLimit(.minutes(10)))
struct ShopSheetCommandLineTests {
    static let directory = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/sheets")

    @Test("every layout: named, each parcel at its carrier with its record")
    func everyLayout() async throws {
        let expected = try JSON(data: Data(contentsOf: Self.directory.appendingPathComponent("expected.json")))
        guard case .object(let files) = expected else { throw Missing() }
        #expect(files.count == 15)
        let simulator = try await ServerProcess(["simulate", "--speed", "0", "--start", "2026-12-06T08:00:00+09:00"])
        defer { simulator.terminate() }
        let origin = simulator.baseURL
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sheets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        for (file, sheet) in files.sorted(by: { $0.key < $1.key }) {
            let environment = [
                "KURONEKO_DB": work.appendingPathComponent("\(file).sqlite").path,
                "KURONEKO_ENDPOINT": "yamato=\(origin)/cgi-bin/tneko,sagawa=\(origin),japanpost=\(origin)",
                "KURONEKO_MIN_INTERVAL": "0",
            ]
            let path = Self.directory.appendingPathComponent(file).path
            let imported = try await KuronekoBinary.run(["import", "--watch", "--lang", "ja", path], environment: environment)
            let layout = sheet["layout"]?.string ?? "?"
            if let refusal = sheet["refusal"]?.string {
                #expect(imported.status != 0, "\(file)")
                // The last line says it (a Shift_JIS sheet's note on its encoding may come before it).
                let line = imported.standardError.split(separator: "\n").last.map(String.init) ?? ""
                #expect(line.hasPrefix("kuroneko: import: this is \(layout), "), "\(file): \(line)")
                #expect(line.contains(refusal), "\(file): \(line)")
                continue
            }
            #expect(imported.status == 0, "\(file): \(imported.standardError)")
            if sheet["layout"]?.string != nil {
                #expect(
                    imported.standardError.contains("kuroneko: import: \(layout), \(sheet["columns"]?.int ?? 0) columns"),
                    "\(file): \(imported.standardError)")
            } else {
                #expect(!imported.standardError.contains(" columns\n"), "\(file): \(imported.standardError)")
            }
            // The sheet written back starts with its header: the rows above it are not written.
            let written = imported.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            #expect(!written.contains("TemplateType"), "\(file): \(written)")
            let listed = try JSON(
                data: Data(try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment).standardOutput.utf8))
            let parcels = sheet["parcels"]?.elements ?? []
            #expect(listed.elements.count == parcels.count, "\(file): \(listed)")
            for parcel in parcels {
                let found = listed.elements.first { $0["number"] == parcel["number"] }
                let watch = try #require(found, "\(file): \(parcel)")
                // A sheet that names no carrier leaves it to the number (the simulator may know it at one).
                if let carrier = parcel["carrier"] { #expect(watch["carrier"] == carrier, "\(file): \(watch)") }
                let record = watch["record"]
                #expect(record?["reference"]?.string == parcel["reference"]?.string, "\(file)")
                #expect(record?["recipient"]?["name"]?.string == parcel["name"]?.string, "\(file)")
                #expect(record?["recipient"]?["email"]?.string == parcel["email"]?.string, "\(file)")
                #expect(record?["shipped_on"]?.string == parcel["shipped_on"]?.string, "\(file)")
            }
        }
    }

    @Test("a number on two customers' rows refused and named; one customer's two order lines one parcel")
    func repeatedNumbers() async throws {
        let numbers = ValidNumbers.numbers(2)
        let (shared, lines) = (numbers[0].digits, numbers[1].digits)
        let simulator = try await ServerProcess(["simulate", "--speed", "0", "--start", "2026-12-06T08:00:00+09:00"])
        defer { simulator.terminate() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("repeats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let sheet = work.appendingPathComponent("orders.csv")
        try Data(
            ("お客様管理番号,お届け先名,お届け先メールアドレス,伝票番号\n" + "A-1,山田 花子,hanako@example.jp,\(shared)\n"
                + "B-2,佐藤 一郎,ichiro@example.jp,\(lines)\n" + "A-9,鈴木 次郎,jiro@example.jp,\(shared)\n"
                + "B-3,佐藤 一郎,ichiro@example.jp,\(lines)\n").utf8
        ).write(to: sheet)
        let environment = [
            "KURONEKO_DB": work.appendingPathComponent("watch.sqlite").path,
            "KURONEKO_ENDPOINT": "yamato=\(simulator.baseURL)/cgi-bin/tneko", "KURONEKO_MIN_INTERVAL": "0",
        ]
        let imported = try await KuronekoBinary.run(
            ["import", "--watch", "--carrier", "yamato", sheet.path], environment: environment)
        #expect(imported.status == 0, "\(imported.standardError)")
        let said = imported.standardError
        #expect(said.contains("row 2: \(numbers[0].formatted) is on rows 2, 4 for different recipients; refused"), "\(said)")
        #expect(said.contains("row 4: \(numbers[0].formatted) is on rows 2, 4"), "\(said)")
        #expect(said.contains("2 numbers on more than one row"), "\(said)")
        let listed = try JSON(
            data: Data(try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment).standardOutput.utf8))
        #expect(listed.elements.count == 1, "\(listed)")
        let parcel = listed.elements.first
        #expect(parcel?["number"]?.string == lines)
        #expect(parcel?["record"]?["reference"]?.string == "B-2, B-3")
        #expect(parcel?["record"]?["recipient"]?["email"]?.string == "ichiro@example.jp")
    }

    struct Missing: Error {}
}
