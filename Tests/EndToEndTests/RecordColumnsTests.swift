import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoServer
import KuronekoStore
import Testing

@testable import kuroneko

/// A shop's sheet read for each parcel's record: the label tools' headers recognised, the user's choices
/// winning, a bad cell dropped with its reason and the rest kept, the carrier column read, and a download
/// read back giving the same record.
@Suite("import: the columns of a parcel record")
struct RecordColumnsTests {
    /// A B2クラウド-like export (a few of its columns).
    static let b2 = [
        "お客様管理番号", "送り状種類", "伝票番号", "出荷予定日", "お届け先電話番号", "お届け先郵便番号", "お届け先住所", "お届け先名",
        "敬称", "ご依頼主電話番号", "品名１", "記事",
    ]

    @Test func labelToolHeaders() throws {
        let sheet = try ImportSheet(first: Self.b2, column: nil, labelColumn: nil)
        #expect(sheet.column == 2, "伝票番号 holds the numbers")
        let columns = sheet.record
        #expect(columns.headerName(of: .reference) == "お客様管理番号")
        #expect(columns.headerName(of: .name) == "お届け先名")
        #expect(columns.headerName(of: .telephone) == "お届け先電話番号")
        #expect(columns.headerName(of: .postcode) == "お届け先郵便番号")
        #expect(columns.headerName(of: .shippedOn) == "出荷予定日")
        #expect(columns.headerName(of: .label) == "品名１")
        #expect(columns.headerName(of: .note) == "記事")
        let report = try #require(columns.report)
        #expect(report.hasPrefix("label ← 品名１, reference ← お客様管理番号, name ← お届け先名"), "\(report)")
        #expect(report.contains("address ← お届け先住所"), "\(report)")
        #expect(report.contains("kept as they came: 送り状種類, 敬称, ご依頼主電話番号"), "\(report)")

        let row = [
            "ORD-1", "0", "3277-5445-9830", "2026/12/01", "０９０－１２３４－５６７８", "1500001", "東京都渋谷区1-1", "山田 太郎", "様",
            "03-0000-0000", "靴", "置き配可",
        ]
        let (record, problems) = columns.record(of: row)
        #expect(problems.isEmpty)
        let kept = try #require(record)
        #expect(kept.reference == "ORD-1")
        #expect(
            kept.recipient
                == .init(name: "山田 太郎", telephone: "０９０－１２３４－５６７８", postcode: "150-0001", address: "東京都渋谷区1-1"))
        #expect(kept.shippedOn == "2026-12-01")
        #expect(kept.note == "置き配可")
        #expect(kept.fields.map(\.name) == ["送り状種類", "敬称", "ご依頼主電話番号"])
        #expect(sheet.label(of: row) == "靴")
    }

    @Test func choicesAndBadCells() throws {
        let header = ["Order ID", "Tracking Number", "Ship To", "Phone", "Carrier", "Memo"]
        let sheet = try ImportSheet(
            first: header, column: nil, labelColumn: nil, chosen: [.name: "Ship To", .note: "Memo"])
        #expect(sheet.column == 1)
        let (record, problems) = sheet.record.record(of: ["#1001", "327754459830", "Ann", "call me", "ゆうパケット", "x"])
        #expect(problems == [
            "record.recipient.telephone \"call me\" is not a telephone number; expected digits such as 090-1234-5678"
        ])
        #expect(record?.reference == "#1001" && record?.recipient?.name == "Ann" && record?.note == "x")
        #expect(record?.recipient?.telephone == nil)
        #expect(sheet.record.carrier(of: ["", "", "", "", "ゆうパケット", ""]) == .japanPost)
        #expect(throws: SheetLayoutError.self) {
            try ImportSheet(first: header, column: nil, labelColumn: nil, chosen: [.email: "E-mail"])
        }
    }

    @Test func carrierCells() {
        #expect(RecordColumns.carrier(named: "クロネコヤマト") == .yamato)
        #expect(RecordColumns.carrier(named: "sagawa") == .sagawa)
        #expect(RecordColumns.carrier(named: "佐川急便（飛脚宅配便）") == .sagawa)
        #expect(RecordColumns.carrier(named: "Japan Post") == .japanPost)
        #expect(RecordColumns.carrier(named: "確認中") == nil)
        #expect(RecordColumns.carrier(named: "") == nil)
    }

    /// The download's header and a row, read back by the import: the same record, and none of Kuroneko's own
    /// columns kept as the shop's.
    @Test(arguments: [true, false])
    func downloadReadBack(english: Bool) async throws {
        let record = ParcelRecord(
            reference: "A-1", recipient: .init(name: "髙橋", telephone: "090-1234-5678", email: "a@example.jp",
                postcode: "150-0001", prefecture: "東京都"),
            shippedOn: "2026-12-01", note: "メモ,です", fields: [.init(name: "品名", value: "=SUM(1)")])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteWatchStore(path: path)
        let watch = try await store.add(
            try TrackingNumber(parsing: "327754459830"), carrier: nil, label: "冬靴",
            record: ParcelRecordChange(filling: record), owner: .local, webhook: nil, now: Date()
        ).watch
        let text =
            WatchListExport.header(english: english, fieldNames: ["品名"]) + "\n"
            + WatchListExport.row(watch, english: english, excel: true, fieldNames: ["品名"]) + "\n"
        let rows = CSV.rows(text)
        let sheet = try ImportSheet(first: rows[0], column: nil, labelColumn: nil)
        #expect(sheet.column == 0)
        #expect(sheet.label(of: rows[1]) == "冬靴")
        let (read, problems) = sheet.record.record(of: rows[1].map(Self.excelText))
        #expect(problems.isEmpty)
        // The formula came back as text with its apostrophe: what Excel shows, never run.
        var expected = record
        expected.fields = [.init(name: "品名", value: "'=SUM(1)")]
        #expect(read == expected)
    }

    /// A cell as Excel reads it: `="…"` is the text inside.
    static func excelText(_ cell: String) -> String {
        cell.hasPrefix("=\"") && cell.hasSuffix("\"") ? String(cell.dropFirst(2).dropLast()) : cell
    }
}
