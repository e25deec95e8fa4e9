import Foundation
import Kuroneko
import KuronekoSimulator
import KuronekoTestSupport
import Testing

/// `import --watch` of a sheet printed before its parcels were handed in: a number no carrier knows yet is
/// watched with its carrier unknown (never Yamato's, in the list, the sheet or the download), and found at its
/// own carrier once the simulator registers it. Against `kuroneko simulate`, standing still until told.
@Suite("A number no carrier knows yet, imported", .serialized, .timeLimit(.minutes(10)))
struct UnknownCarrierImportTests {
    static let start = ISO8601DateFormatter().date(from: "2026-12-02T08:00:00+09:00")!

    /// A 12-digit number the simulator gives `carrier`, handed in between one and eleven hours after `epoch`,
    /// that more than one carrier's form allows.
    static func number(of carrier: Carrier, epoch: Date) throws -> TrackingNumber {
        for seed in stride(from: 100_000_000_000 as Int64, to: 999_999_999_999, by: 7_919_993) {
            for check in 0...9 {
                guard let number = try? TrackingNumber(parsing: String(seed / 10 * 10 + Int64(check))),
                    number.candidates.count > 1, SimulatedCarriers.owner(of: number) == carrier
                else { continue }
                let registered =
                    carrier == .yamato
                    ? SimulatedParcel(number: number, epoch: epoch).registeredAt
                    : SimulatedCarrierParcel(number: number, carrier: carrier, epoch: epoch).registeredAt
                let after = registered.timeIntervalSince(epoch)
                if after > 3_600, after < 11 * 3_600 { return number }
            }
        }
        throw SearchFailed(carrier: carrier)
    }

    struct SearchFailed: Error {
        let carrier: Carrier
    }

    @Test(arguments: [Carrier.yamato, .sagawa, .japanPost])
    func watchedUnknownThenFoundAtItsCarrier(carrier: Carrier) async throws {
        let number = try Self.number(of: carrier, epoch: Self.start)
        let simulator = try await ServerProcess(["simulate", "--speed", "0", "--start", "2026-12-02T08:00:00+09:00"])
        defer { simulator.terminate() }
        let origin = simulator.baseURL
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unknown-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sheet = directory.appendingPathComponent("labels.csv")
        try Data("注文番号,送り状番号\nA-1001,\(number.digits)\n".utf8).write(to: sheet)
        let environment = [
            "KURONEKO_DB": directory.appendingPathComponent("watch.sqlite").path,
            "KURONEKO_ENDPOINT": "yamato=\(origin)/cgi-bin/tneko,sagawa=\(origin),japanpost=\(origin)",
            "KURONEKO_MIN_INTERVAL": "0",
        ]
        let imported = try await KuronekoBinary.run(
            ["import", "--watch", "--column", "送り状番号", "--lang", "ja", sheet.path], environment: environment)
        #expect(imported.status == 0, "\(imported.standardError)")
        let row = try #require(imported.standardOutput.split(separator: "\n").last.map(String.init))
        #expect(row.contains("確認中") && row.contains("運送会社を確認中"), "\(row)")
        #expect(!row.contains("ヤマト運輸,"), "\(row)")

        let listed = try JSON(
            data: Data(try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment).standardOutput.utf8))
        #expect(listed.elements.first?["carrier"] == .null)
        // The order number came with it, recognised by its header.
        #expect(listed.elements.first?["record"]?["reference"] == .string("A-1001"))
        let csv = try await KuronekoBinary.run(["list", "--all", "--csv", "--lang", "en"], environment: environment).standardOutput
        let line = try #require(csv.split(separator: "\n").last.map(String.init))
        // The carrier's cell says unknown; the status names every carrier asked.
        #expect(line.contains(",unknown,not_found,\"carrier not known yet (not registered at "), "\(line)")
        #expect(!line.contains(",yamato,"), "\(line)")

        // Handed in: the simulator's clock moves past the registration, and the next check finds it.
        let now = ISO8601DateFormatter().string(from: Self.start.addingTimeInterval(12 * 3_600))
        let moved = try await HTTPClient.send("PUT", origin + "/admin/clock", body: #"{"now": "\#(now)"}"#)
        #expect(moved.status == 200)
        #expect(try await KuronekoBinary.run(["refresh", "-q"], environment: environment).status == 0)
        let found = try JSON(
            data: Data(try await KuronekoBinary.run(["list", "--all", "--json"], environment: environment).standardOutput.utf8))
        #expect(found.elements.first?["carrier"] == .string(carrier.rawValue))
        #expect(found.elements.first?["shipment"]?["status"]?["code"] != .string("not_found"))
    }
}
