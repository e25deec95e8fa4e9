import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
import KuronekoStore
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// The sheets shops have (`Tests/Fixtures/sheets`: each export's header as public tools write it, rows of the
/// project's own, in the export's encoding and separator), uploaded to `POST /v1/watches/import`: the layout named
/// in the report, every number watched at the carrier the sheet says, its reference, recipient and ship date kept;
/// an export without numbers refused in one line naming the one to use.
@Suite("sheets shops have: every layout imported", .timeLimit(.minutes(10)))
struct ShopSheetLayoutTests {
    static let directory = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/sheets")

    struct Sheet: Sendable, CustomStringConvertible {
        let file: String
        let expected: JSON
        var description: String { file }
    }

    static let sheets: [Sheet] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("expected.json")),
            let expected = try? JSON(data: data), case .object(let files) = expected
        else { return [] }
        return files.keys.sorted().map { Sheet(file: $0, expected: files[$0]!) }
    }()

    @Test("the fixtures are there: fifteen sheets")
    func fixtures() {
        #expect(Self.sheets.count == 15)
    }

    @Test("uploaded: the layout named, every parcel at its carrier with its record", arguments: sheets)
    func uploaded(sheet: Sheet) async throws {
        let harness = await Harness()
        let body = try Data(contentsOf: Self.directory.appendingPathComponent(sheet.file))
        let answer = await WatchImportAPITests.post(harness, body)
        let report = try JSON(data: answer.body)
        if let refusal = sheet.expected["refusal"]?.string {
            #expect(answer.status == 400)
            let detail = report["detail"]?.string ?? ""
            #expect(detail.contains(sheet.expected["layout"]?.string ?? "?") && detail.contains(refusal), "\(detail)")
            #expect(!detail.contains("\n"))
            return
        }
        #expect(answer.status == 200, "\(report)")
        let columns = sheet.expected["columns"]?.int ?? 0
        if let layout = sheet.expected["layout"]?.string {
            #expect(report["layout"]?.string?.hasPrefix("\(layout), \(columns) columns") == true, "\(report)")
            let detail = report["layout_detail"]
            #expect(detail?["name"] == sheet.expected["layout"] && detail?["columns"]?.int == columns, "\(report)")
            #expect(detail?["header_row"] == sheet.expected["header_row"], "\(report)")
        } else {
            // A sheet of no known layout: read by its headers' common names, no layout named.
            #expect(report["layout"] == .null && report["layout_detail"] == .null, "\(report)")
        }
        let warnings = report["warnings"]?.elements ?? []
        #expect(!warnings.isEmpty == (sheet.expected["warned"] == .bool(true)), "\(warnings)")
        if let warning = warnings.first {
            #expect(warning["code"] == .string("no_email_column"))
            #expect(warning["detail"]?.string?.hasPrefix("no column holds the recipients' e-mail") == true)
        }
        // The columns read, for the page to show and change: the numbers' first, each a header of the sheet.
        let mapping = report["mapping"]?.elements ?? []
        let headers = report["headers"]?.elements.compactMap(\.string) ?? []
        #expect(headers.count == min(columns, 200) && mapping.first?["role"] == .string("number"), "\(report)")
        #expect(mapping.allSatisfy { entry in
            headers.contains { entry["column"]?.string?.hasPrefix($0) == true } || entry["column"]?.string?.contains(" + ") == true
        }, "\(mapping)")
        let parcels = sheet.expected["parcels"]?.elements ?? []
        #expect(report["watched"]?.int == parcels.count && report["skipped"]?.int == 0, "\(report)")
        for parcel in parcels {
            let number = try TrackingNumber(parsing: parcel["number"]?.string ?? "")
            let watch = try #require(try await harness.store.watch(number, owner: .local), "\(number.digits)")
            #expect(watch.carrier?.rawValue == parcel["carrier"]?.string, "\(number.digits)")
            let record = watch.record
            #expect(record?.reference == parcel["reference"]?.string)
            #expect(record?.recipient?.name == parcel["name"]?.string)
            #expect(record?.recipient?.email == parcel["email"]?.string)
            #expect(record?.recipient?.telephone == parcel["telephone"]?.string)
            #expect(record?.recipient?.postcode == parcel["postcode"]?.string)
            #expect(record?.shippedOn == parcel["shipped_on"]?.string)
        }
    }

    @Test("B2's 97 columns keep only what the layout lists, and its e-mail is a role, not a dropped column")
    func b2Kept() throws {
        let found = try Self.header(of: "b2-issued.csv")
        let header = try #require(found)
        let sheet = try ImportSheet(first: header, column: nil, labelColumn: nil, layout: SheetLayout.recognising(header))
        #expect(sheet.layout?.name == "B2クラウド 発行済みデータ")
        #expect(sheet.record.dropped == 0)
        let kept = sheet.record.kept.map { header[$0] }
        #expect(kept.contains("送り状種類") && !kept.contains("お届け先住所") && !kept.contains("ご依頼主電話番号"), "\(kept)")
        #expect(sheet.record.columnNames(of: .address) == "お届け先住所 + お届け先住所（アパートマンション名）")
        #expect(sheet.record.columnNames(of: .email)?.hasPrefix("お届け予定ｅメールe-mailアドレス (else ") == true)
    }

    /// The header row of a fixture, decoded as the import decodes it.
    static func header(of file: String) throws -> [String]? {
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
        let decoder = try SheetDecoder(first: bytes, forced: nil)
        let text = try decoder.decode(bytes, last: true, row: 1)
        var rows: [[String]] = []
        var parser = CSVStream(separator: CSVStream.separator(of: text[...]))
        parser.feed(text) { if case .cells(let cells) = $0 { rows.append(cells) } }
        guard case .header(let index, _)? = SheetHeaderSearch.find(in: rows, complete: true) else { return nil }
        return rows[index]
    }
}

/// Where the header is, and what a row of it says, without the server.
@Suite("sheets shops have: the header found")
struct SheetHeaderSearchTests {
    @Test("a header below other rows; the first row of bare numbers; a named column; more rows wanted")
    func search() {
        let number = ValidNumbers.numbers(1)[0].digits
        #expect(
            SheetHeaderSearch.find(in: [["出荷データ 2026/12/06"], ["注文番号", "伝票番号"]], complete: false)
                == .header(index: 1, layout: nil))
        #expect(SheetHeaderSearch.find(in: [[number, "A-1"]], complete: false) == .firstRow)
        #expect(SheetHeaderSearch.find(in: [["メモ"], ["No", "送付"]], column: "送付", complete: false) == .header(index: 1, layout: nil))
        #expect(SheetHeaderSearch.find(in: [["title"], ["a", "b"]], complete: false) == nil, "ten rows are looked at")
        #expect(SheetHeaderSearch.find(in: [["title"], ["a", "b"]], complete: true) == .firstRow)
        #expect(SheetHeaderSearch.find(in: Array(repeating: ["x"], count: 10), complete: false) == .firstRow)
        #expect(SheetHeaderSearch.find(in: [nil, ["伝票番号"]], complete: false) == .header(index: 1, layout: nil))
    }

    @Test("tabs or commas, from the first lines")
    func separator() {
        #expect(CSVStream.separator(of: "a\tb\tc\r\n1\t2,5\t3\r\n") == "\t")
        #expect(CSVStream.separator(of: "a,b,c\n\"x\ty\",2,3\n") == ",")
        var rows: [[String]] = []
        var parser = CSVStream(separator: "\t")
        parser.feed("注文番号\t\"a,b\"\t\"x\"\"y\"\r\n") { if case .cells(let cells) = $0 { rows.append(cells) } }
        #expect(rows == [["注文番号", "a,b", "x\"y"]])
    }

    @Test("a day with a time after it; a time alone is not a day")
    func dayWithTime() throws {
        for text in ["2026/12/06 10:15", "2026-12-06T10:15:30", "20261206 9:05", "2026年12月6日 10:15:30"] {
            #expect(try ParcelRecord(shippedOn: text).validated()?.shippedOn == "2026-12-06", "\(text)")
        }
        #expect(throws: ParcelRecordError.self) { try ParcelRecord(shippedOn: "10:15").validated() }
        #expect(throws: ParcelRecordError.self) { try ParcelRecord(shippedOn: "2026/12/06 noon").validated() }
    }

    @Test("楽天's codes, a carrier's name, and a label tool's own carrier")
    func carriers() throws {
        let rakuten = ["注文番号", "送付先ID", "発送明細ID", "お荷物伝票番号", "配送会社", "発送日"]
        let columns = try RecordColumns(header: rakuten, chosen: [:], layout: SheetLayout.recognising(rakuten))
        #expect(columns.carrier(of: ["", "", "", "", "1002", ""]) == .sagawa)
        #expect(columns.carrier(of: ["", "", "", "", "ゆうパケット", ""]) == .japanPost)
        #expect(columns.carrier(of: ["", "", "", "", "1000", ""]) == nil, "楽天's その他 is left to the number")
        let b2 = ["お客様管理番号", "送り状種類", "クール区分", "伝票番号"]
        let label = try RecordColumns(header: b2, chosen: [:], layout: SheetLayout.recognising(b2))
        #expect(label.carrier(of: ["A", "0", "", "x"]) == .yamato)
    }
}
