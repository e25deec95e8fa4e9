import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// `kuroneko notices`: the settings set from a file (a bad one refused by name, nothing saved), and a parcel's
/// notice previewed as the server renders it, in both character sets.
@Suite("kuroneko notices", .timeLimit(.minutes(5)))
struct NoticesCommandTests {
    @Test func settingsAndPreview() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("list.sqlite").path
        let store = try SQLiteWatchStore(path: database)
        let number = try TrackingNumber(parsing: "312345678901")
        var record = ParcelRecordChange()
        record.reference = .some("ORD-7")
        record.recipient = ["name": "山田 太郎", "email": "taro@example.jp"]
        _ = try await store.add(number, carrier: .yamato, label: nil, record: record, owner: .local, webhook: nil, now: Date())
        let now = Date()
        let shipment = Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(code: .inTransit, label: "輸送中", labelEnglish: "In transit", summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil,
            events: [TrackingEvent(label: "輸送中", labelEnglish: nil, code: .inTransit, at: JapanDateTime(now), dateText: nil, place: "東京")],
            deliveredAt: nil)
        _ = try await store.record(shipment, fetchedAt: now) { _, _ in now + 3_600 }

        let bad = folder.appendingPathComponent("bad.json")
        try Data(#"{"enabled": true, "shop": {"name": "店"}}"#.utf8).write(to: bad)
        let refused = try await KuronekoBinary.run(["notices", "settings", bad.path, "--db", database])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("shop.address, shop.contact must be given"), "\(refused.standardError)")
        let unknown = folder.appendingPathComponent("unknown.json")
        try Data(#"{"colour": "red"}"#.utf8).write(to: unknown)
        let named = try await KuronekoBinary.run(["notices", "settings", unknown.path, "--db", database])
        #expect(named.status == 2 && named.standardError.contains("colour is not a setting"), "\(named.standardError)")

        let good = folder.appendingPathComponent("shop.json")
        try Data(#"{"shop": {"name": "くろねこ雑貨店", "address": "東京都渋谷区", "contact": "03-1234-5678"}}"#.utf8).write(to: good)
        let saved = try await KuronekoBinary.run(["notices", "settings", good.path, "--db", database])
        #expect(saved.status == 0 && saved.standardOutput.contains("くろねこ雑貨店"), "\(saved.standardError)")

        let preview = try await KuronekoBinary.run([
            "notices", "preview", number.digits, "--milestone", "shipped", "--db", database, "--smtp-from", "shop@example.jp",
            "--public-url", "https://parcels.example.jp",
        ])
        #expect(preview.status == 0, "\(preview.standardError)")
        #expect(preview.standardOutput.contains("To: taro@example.jp"))
        #expect(preview.standardOutput.contains("山田 太郎 様") && preview.standardOutput.contains("ORD-7"))
        #expect(preview.standardOutput.contains("https://parcels.example.jp/notices/stop?t=s1."))
        let raw = try await KuronekoBinary.run([
            "notices", "preview", number.digits, "--milestone", "shipped", "--db", database, "--raw", "--mail-charset", "utf-8",
            "--lang", "en",
        ])
        #expect(raw.status == 0 && raw.standardOutput.contains("charset=UTF-8"), "\(raw.standardError)")
        #expect(raw.standardOutput.contains("List-Unsubscribe: <https://kuroneko.example.invalid/notices/stop?t=s1."))
        let missing = try await KuronekoBinary.run(["notices", "preview", number.digits, "--db", database])
        #expect(missing.status == 2 && missing.standardError.contains("--milestone"))
        let typo = try await KuronekoBinary.run(["notices", "previwe", "--db", database])
        #expect(typo.status == 2 && typo.standardError.contains("did you mean 'preview'"))
    }
}
