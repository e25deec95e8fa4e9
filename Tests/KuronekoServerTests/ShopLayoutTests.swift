import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoStore
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// The header spellings of the sheets shops have (their column names as public tools write them; the rows are the
/// project's own): the number's column found, and the reference, the e-mail and the day read from theirs.
@Suite("sheets shops have: their headers")
struct ShopLayoutTests {
    struct Layout: Sendable, CustomStringConvertible {
        let description: String
        let header: [String]
        let row: @Sendable (String) -> [String]
        let reference: String?
        let email: String?
        let shippedOn: String?
    }

    static let layouts: [Layout] = [
        Layout(
            description: "Sagawa's tools: お問い合せ送り状No., お客様管理ナンバー",
            header: ["出荷日時", "お問い合せ送り状No.", "お届け先名称１", "お客様管理ナンバー"],
            row: { ["2026/12/06 10:00", $0, "佐藤 一郎", "SG-0001"] }, reference: "SG-0001", email: nil, shippedOn: nil),
        Layout(
            description: "ゆうプリR: お客様側管理番号, 発送予定日 as eight digits",
            header: ["お問い合わせ番号", "お客様側管理番号", "発送予定日", "お届け先氏名"],
            row: { [$0, "YP-77", "20261206", "山田 花子"] }, reference: "YP-77", email: nil, shippedOn: "2026-12-06"),
        Layout(
            description: "B2クラウド: the notice's e-mail past the thirty kept columns",
            header: ["お客様管理番号", "送り状種類", "伝票番号"] + (1...40).map { "予備\($0)" } + ["お届け予定ｅメールe-mailアドレス"],
            row: { ["B2-9", "0", $0] + Array(repeating: "x", count: 40) + ["hanako@example.jp"] }, reference: "B2-9",
            email: "hanako@example.jp", shippedOn: nil),
        Layout(
            description: "Amazon's 出荷通知: お問合わせ伝票番号, 注文番号, 出荷日",
            header: ["注文番号", "注文商品番号", "出荷数", "出荷日", "配送業者コード", "配送業者名", "お問合わせ伝票番号"],
            row: { ["250-1234567-1234567", "1", "1", "2026-12-06", "Yamato", "ヤマト運輸", $0] },
            reference: "250-1234567-1234567", email: nil, shippedOn: "2026-12-06"),
        Layout(
            description: "Rakuten's 発送明細: お荷物伝票番号, 注文番号, 発送日",
            header: ["注文番号", "送付先ID", "発送明細ID", "お荷物伝票番号", "配送会社", "発送日"],
            row: { ["123456-20261206-0000001", "1", "1", $0, "1001", "2026/12/06"] },
            reference: "123456-20261206-0000001", email: nil, shippedOn: "2026-12-06"),
    ]

    @Test("the number's column, the reference, the e-mail and the day", arguments: layouts)
    func read(layout: Layout) throws {
        let number = ValidNumbers.numbers(1)[0]
        let sheet = try ImportSheet(first: layout.header, column: nil, labelColumn: nil)
        let cells = layout.row(number.digits)
        #expect(layout.header[sheet.column] == layout.header[cells.firstIndex(of: number.digits) ?? -1])
        guard case .number(let found) = sheet.entry(of: cells, row: 2, carrier: nil) else {
            Issue.record("row 2 is not a number")
            return
        }
        #expect(found == number)
        let (record, problems) = sheet.record.record(of: cells)
        #expect(problems.isEmpty, "\(problems)")
        #expect(record?.reference == layout.reference)
        #expect(record?.recipient?.email == layout.email)
        #expect(record?.shippedOn == layout.shippedOn)
    }

    @Test("a row whose number cell is wrong says why in full, the cell cut to 40 characters")
    func reasonInFull() throws {
        let sheet = try ImportSheet(first: ["伝票番号"], column: nil, labelColumn: nil)
        guard case .skipped(let reason) = sheet.entry(of: [String(repeating: "0", count: 300)], row: 5, carrier: nil) else {
            Issue.record("a 300-digit cell was taken")
            return
        }
        #expect(reason.hasPrefix("row 5: \"" + String(repeating: "0", count: 40) + "…\""))
        #expect(reason.hasSuffix("or is international like EN123456785JP"), "\(reason)")
    }
}
