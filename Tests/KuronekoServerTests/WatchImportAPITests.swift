import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
import KuronekoTestSupport
import Testing

@testable import KuronekoServer
@testable import KuronekoStore

/// `POST /v1/watches/import`: a shop's sheet in, its parcels watched with their rows' labels and records, the
/// report out; a sheet that cannot be read adds nothing, and every refusal is one clear 4xx.
@Suite("API: a sheet imported", .timeLimit(.minutes(10)))
struct WatchImportAPITests {
    static func post(_ harness: Harness, _ body: Data, query: String = "") async -> HTTPResponse {
        await harness.api.respond(
            to: HTTPRequest(method: "POST", target: WatchRoutes.importPath + query, headers: ["content-type": "text/csv"], body: body))
    }

    static func sheet(_ numbers: [TrackingNumber], extra: [String] = []) -> Data {
        var lines = ["お客様管理番号,お届け先名,お届け先電話番号,品名,伝票番号"]
        for (index, number) in numbers.enumerated() {
            lines.append("A-\(index),山田 \(index),090-0000-\(String(format: "%04d", index)),靴 \(index),\(number.digits)")
        }
        lines += extra
        return SheetText.encode(lines.joined(separator: "\r\n") + "\r\n", as: .cp932).0
    }

    @Test("a Shift_JIS sheet: every number watched with its label and record; bad rows skipped by name; again, existing")
    func imported() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(30)
        let body = Self.sheet(numbers, extra: [",,,,", "A-x,誰か,,,1234-5678-9015", "A-y,誰か,,,1.23457E+11"])
        let answer = await Self.post(harness, body)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let report = try JSON(data: answer.body)
        #expect(report["rows"]?.int == 30 && report["watched"]?.int == 30 && report["existing"]?.int == 0)
        #expect(report["skipped"]?.int == 2 && report["encoding"]?.string == "Shift_JIS (CP932)")
        let problems = report["problems"]?.elements.compactMap(\.string) ?? []
        #expect(problems.count == 2 && problems[0].hasPrefix("row 33:") && problems[1].hasPrefix("row 34:"), "\(problems)")
        #expect(report["columns"]?.string?.contains("number ← 伝票番号") == true, "\(report)")
        let watch = try #require(try await harness.store.watch(numbers[7], owner: .local))
        #expect(watch.label == "靴 7")
        #expect(watch.record?.reference == "A-7" && watch.record?.recipient?.name == "山田 7")
        #expect(watch.record?.recipient?.telephone == "090-0000-0007")
        #expect(watch.carrier == nil, "a number no row names a carrier for is found at its first check")

        let again = try JSON(data: await Self.post(harness, body).body)
        #expect(again["watched"]?.int == 0 && again["existing"]?.int == 30)
    }

    @Test("a byte that does not read adds nothing; the list's limit stops the import where it was reached")
    func nothingHalfDone() async throws {
        let harness = await Harness(maxWatchesPerOwner: 10)
        let numbers = ValidNumbers.numbers(12)
        var broken = Self.sheet(numbers)
        broken.append(contentsOf: [0x82, 0xFF, 0x0D, 0x0A])
        let refused = await Self.post(harness, broken, query: "?encoding=cp932")
        #expect(refused.status == 400)
        #expect(try JSON(data: refused.body)["detail"]?.string?.hasPrefix("the sheet ") == true)
        #expect(try await harness.store.watches(owner: .local, filter: .all, after: nil, limit: 100).isEmpty)

        let answer = try JSON(data: await Self.post(harness, Self.sheet(numbers)).body)
        #expect(answer["watched"]?.int == 10)
        #expect(answer["stopped"]?.string?.hasPrefix("row 12: the list holds its 10 watches") == true, "\(answer)")
    }

    /// Each refusal: the query, the sheet, the start of the problem's detail.
    static let refusals: [(String, Data, String)] = [
        ("", Data(), "send the sheet itself"),
        ("?carrier=dhl", Data("伝票番号\r\n".utf8), "carrier \"dhl\" is not"),
        ("?encoding=latin1", Data("伝票番号\r\n".utf8), "encoding \"latin1\" is not utf-8, utf-16 or cp932"),
        ("?encoding=utf-16", Data("伝票番号\r\n".utf8), "the sheet has no UTF-16 byte order mark"),
        ("", Data(String(repeating: "x", count: 70_000).utf8), "the sheet's first row is longer than 64 KiB"),
        ("", Data("\r\n".utf8), "the sheet has no rows"),
        // Columns chosen: hostile, unknown, empty, too long, not there, too many.
        ("?column=colour%3Dred", Data("伝票番号\r\n".utf8), "column colour=…: no such role; the roles are number,"),
        ("?column=email%3D", Data("伝票番号\r\n".utf8), "column email= names no column"),
        ("?column=email%3D\(String(repeating: "x", count: 300))", Data("伝票番号\r\n".utf8), "column email= names no column"),
        ("?column=email%3D%E9%80%A3%E7%B5%A1%E5%85%88", Data("伝票番号,注文番号\r\n1,2\r\n".utf8),
         "the sheet's columns: column email=連絡先: no column of that name; the header has 伝票番号, 注文番号"),
        ("?column=number%3D9", Data("伝票番号,注文番号\r\n1,2\r\n".utf8), "column 9 is beyond the file's 2 columns"),
        (Self.thirteenColumns, Data("伝票番号\r\n".utf8),
         "13 column parameters; at most 12, one per role"),
    ]

    /// A query naming 13 columns, one more than there are roles.
    static let thirteenColumns = "?" + [String](repeating: "column=email%3DA", count: 13).joined(separator: "&")

    @Test(
        "refused at once, one line each: nothing, a bad carrier or encoding, a sheet without rows, a first row of 64 KiB",
        arguments: refusals)
    func refused(query: String, body: Data, detail: String) async throws {
        let harness = await Harness()
        let answer = await Self.post(harness, body, query: query)
        #expect(answer.status == 400)
        let text = try JSON(data: answer.body)["detail"]?.string ?? ""
        #expect(text.contains(detail), "\(text)")
        #expect(!text.contains("\n"))
    }
}

extension WatchImportAPITests {
    @Test("sheets read at once: two in all, one of them per list")
    func importSlots() {
        let slots = ConcurrencyLimit(WatchRoutes.concurrentImports, perKey: 1)
        #expect(slots.enter(key: "shop"))
        #expect(!slots.enter(key: "shop"), "the shop's second sheet waits for its first")
        #expect(slots.enter(key: "home"))
        #expect(!slots.enter(key: "office"), "two in all")
        slots.leave(key: "shop")
        #expect(slots.enter(key: "office"))
        #expect(!slots.enter(key: "office"))
        slots.leave(key: "home")
        #expect(slots.enter(key: "shop"))
    }
}

extension WatchImportAPITests {
    @Test("a number on rows of different recipients is refused and named; one recipient's rows are one parcel, both orders listed")
    func numberOnTwoRows() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(2)
        let (reprinted, lines) = (numbers[0].digits, numbers[1].digits)
        let sheet = [
            "お客様管理番号,お届け先名,お届け先電話番号,お届け先メールアドレス,品名,伝票番号",
            "A-1,山田 花子,090-1111-1111,hanako@example.jp,靴,\(reprinted)",
            "B-2,佐藤 一郎,090-2222-2222,ichiro@example.jp,本,\(lines)",
            "A-9,鈴木 次郎,090-9999-9999,jiro@example.jp,鞄,\(reprinted)",
            "B-3,佐藤 一郎,090-2222-2222,ichiro@example.jp,本 下巻,\(lines)",
        ]
        let answer = await Self.post(harness, SheetText.encode(sheet.joined(separator: "\r\n") + "\r\n", as: .cp932).0)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let report = try JSON(data: answer.body)
        #expect(report["watched"]?.int == 1 && report["existing"]?.int == 1 && report["skipped"]?.int == 2, "\(report)")
        #expect(report["repeated"]?.int == 2)
        let problems = report["problems"]?.elements.compactMap(\.string) ?? []
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.contains("is on rows 2, 4 for different recipients; refused") }, "\(problems)")
        // The same by code, for a page to word: the number and its rows.
        let details = report["problem_details"]?.elements ?? []
        #expect(details.map { $0["code"] } == [.string("repeated_number"), .string("repeated_number")], "\(details)")
        #expect(details.first?["rows"] == .string("2, 4") && details.first?["number"] == .string(numbers[0].formatted))
        #expect(details.map { $0["row"] } == [.string("2"), .string("4")])
        // Neither customer's parcel is made from the other's row: the number is not watched at all.
        #expect(try await harness.store.watch(numbers[0], owner: .local) == nil)
        // One recipient's two order lines: one parcel, both orders, the first row's label and recipient.
        let parcel = try #require(try await harness.store.watch(numbers[1], owner: .local))
        #expect(parcel.record?.reference == "B-2, B-3" && parcel.label == "本")
        #expect(parcel.record?.recipient?.name == "佐藤 一郎" && parcel.record?.recipient?.email == "ichiro@example.jp")
    }
}

extension WatchImportAPITests {
    @Test("a number on thousands of rows for different recipients is named with five of them, the rest counted")
    func refusedRowsBounded() async throws {
        let harness = await Harness()
        let number = ValidNumbers.numbers(1)[0].digits
        var sheet = ["お客様管理番号,お届け先名,伝票番号"]
        for index in 0..<3_000 { sheet.append("R-\(index),客 \(index),\(number)") }
        let answer = await Self.post(harness, Data((sheet.joined(separator: "\r\n") + "\r\n").utf8))
        let report = try JSON(data: answer.body)
        #expect(report["skipped"]?.int == 3_000 && report["watched"]?.int == 0, "\(report)")
        let problems = report["problems"]?.elements.compactMap(\.string) ?? []
        #expect(problems.count == 20 && report["more_problems"]?.int == 2_980)
        #expect(problems.first == "row 2: \(try TrackingNumber(parsing: number).formatted) is on rows 2, 3, 4, 5, 6 and 2995 more "
            + "for different recipients; refused (give each parcel its own row's number)", "\(problems.first ?? "")")
    }
}
