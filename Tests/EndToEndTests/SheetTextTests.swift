import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoServer
import KuronekoTestSupport
import Testing

@testable import kuroneko

/// Reading a shop's sheet: every encoding Japanese systems export, never a silent guess, and Excel's forms of
/// a number.
@Suite("import: encodings and Excel's cells")
struct SheetTextTests {
    /// 山田,327754459830 in CP932 (山 8E 52, 田 93 63).
    private static let cp932Row: [UInt8] = [0x8E, 0x52, 0x93, 0x63] + Array(",327754459830\r\n".utf8)

    /// The text of `data` read as the import reads it, in pieces of `piece` bytes (cut through characters).
    private static func decode(_ data: Data, as forced: SheetEncoding?, piece: Int = 3)
        throws(SheetTextError) -> (String, SheetEncoding)
    {
        let bytes = [UInt8](data)
        let decoder = try SheetDecoder(first: Array(bytes.prefix(65_536)), forced: forced)
        var text = ""
        var start = 0
        repeat {
            let end = min(bytes.count, start + piece)
            let part = Array(bytes[start..<end])
            text += try decoder.decode(part, last: end == bytes.count, row: 1 + text.filter { $0 == "\n" || $0 == "\r\n" }.count)
            start = end
        } while start < bytes.count
        return (text, decoder.encoding)
    }

    @Test("UTF-8 with and without a BOM, UTF-16 by its BOM, CP932 detected and said")
    func encodings() async throws {
        let text = "名前,番号\r\n山田,327754459830\r\n"
        #expect(try Self.decode(Data(text.utf8), as: nil) == (text, .utf8))
        #expect(try Self.decode(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8), as: nil) == (text, .utf8))
        var little = Data([0xFF, 0xFE])
        for unit in text.utf16 { little.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        #expect(try Self.decode(little, as: nil) == (text, .utf16))
        var big = Data([0xFE, 0xFF])
        for unit in text.utf16 { big.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)]) }
        #expect(try Self.decode(big, as: nil) == (text, .utf16))
        let shiftJIS = Data(Self.cp932Row)
        #expect(try Self.decode(shiftJIS, as: nil) == ("山田,327754459830\r\n", .cp932))
        #expect(try Self.decode(shiftJIS, as: .cp932).1 == .cp932)
    }

    @Test("a file that is none of them is refused, naming the row of the first byte that does not read")
    func refusals() {
        let bad = Data("a,b\r\n1,2\r\n".utf8) + Data([0xFF, 0xFE, 0xFF]) + Data(",3\r\n".utf8)
        #expect(throws: SheetTextError.self) { try Self.decode(bad, as: nil) }
        do {
            _ = try Self.decode(bad, as: nil)
        } catch {
            #expect(error.description.contains("row 3 has bytes FF"), "\(error)")
            #expect(error.description.contains("--encoding"))
        }
        do {
            _ = try Self.decode(Data(Self.cp932Row), as: .utf8)
            Issue.record("CP932 read as UTF-8")
        } catch {
            #expect(error.description.contains("is not UTF-8: row 1 has byte 0x8E"), "\(error)")
        }
        #expect(throws: SheetTextError.self) { try Self.decode(Data("plain".utf8), as: .utf16) }
    }

    @Test("CP932 on output: Japanese as Shift_JIS, a character it lacks as ? and counted")
    func output() async throws {
        let (bytes, replaced) = SheetText.encode("山田,😀\n", as: .cp932)
        #expect(Array(bytes) == [0x8E, 0x52, 0x93, 0x63, 0x2C, 0x3F, 0x0A])
        #expect(replaced == 1)
        #expect(try Self.decode(bytes, as: .cp932).0 == "山田,?\n")
    }

    @Test(
        "Excel's forms of a number are read; its rounded display is refused",
        arguments: [
            ("=\"327754459830\"", "327754459830"), ("'327754459830", "327754459830"),
            (" 3277-5445-9830 ", "3277-5445-9830"),
        ])
    func excelForms(cell: String, number: String) async throws {
        #expect(try SheetCell.number(in: cell).get() == number)
    }

    @Test("1.23457E+11 and an empty cell are problems, named")
    func excelProblems() {
        #expect(SheetCell.number(in: "1.23457E+11") == .failure(.rounded("1.23457E+11")))
        #expect(SheetCell.number(in: "3.3E11") == .failure(.rounded("3.3E11")))
        #expect(SheetCell.number(in: "  ") == .failure(.empty))
    }

    @Test("rows keep their cells and place; the header is found or made; bad rows name their row")
    func sheet() async throws {
        let rows = CSV.rows("order,no\r\nA1,327754459830\r\nA2,12\r\n\r\nA3,\"=\"\"327754459830\"\"\"\r\n")
        let sheet = try ImportSheet(first: rows[0], column: "no", labelColumn: "order")
        #expect(sheet.header == ["order", "no"])
        let entries = rows.dropFirst().enumerated().map { sheet.entry(of: $1, row: $0 + 2, carrier: nil) }
        guard case .number = entries[0], case .skipped(let reason) = entries[1], case .blank = entries[2],
            case .number = entries[3]
        else {
            Issue.record("\(entries)")
            return
        }
        #expect(reason.hasPrefix("row 3: \"12\" has 2 digits"), "\(reason)")
        #expect(sheet.label(of: rows[1]) == "A1")
        #expect(sheet.written(rows[2], tracking: ["x"]) == ["A2", "12", "x"])
        let headless = try ImportSheet(first: ["327754459830"], column: "1", labelColumn: nil)
        #expect(headless.header == nil && headless.writtenHeader(english: true).first == "column_1")
        #expect(throws: SheetLayoutError.self) { try ImportSheet(first: rows[0], column: "missing", labelColumn: nil) }
    }

    /// A row's cells; a run of blank lines as that many rows of one empty cell (as a whole-text reader has them).
    static func collect(_ row: CSVStream.Row, into rows: inout [[String]]) {
        switch row {
        case .cells(let cells): rows.append(cells)
        case .blank(let lines): rows += Array(repeating: [""], count: lines)
        case .oversized: break
        }
    }

    @Test("CSV read as it comes: pieces cut anywhere give the same rows; a row past 64 KiB is not kept")
    func stream() {
        let text = "a,\"b\"\"c\",d\r\n\r\n1,\"x\ny\",2\r3\n"
        let whole = CSV.rows(text)
        for cut in 1..<text.unicodeScalars.count {
            var parser = CSVStream()
            var rows: [[String]] = []
            let scalars = Array(text.unicodeScalars)
            for part in [scalars[..<cut], scalars[cut...]] {
                var piece = String.UnicodeScalarView()
                piece.append(contentsOf: part)
                parser.feed(String(piece)) { Self.collect($0, into: &rows) }
            }
            parser.finish { Self.collect($0, into: &rows) }
            #expect(rows == whole.filter { _ in true }, "cut at \(cut)")
        }
        var parser = CSVStream()
        var oversized = 0
        var kept: [[String]] = []
        let long = String(repeating: "x", count: CSVStream.maximumRowScalars + 10)
        parser.feed("\"" + long + "\",1\nok,2\n") { row in
            switch row {
            case .oversized: oversized += 1
            case .cells(let cells): kept.append(cells)
            case .blank: break
            }
        }
        #expect(oversized == 1 && kept == [["ok", "2"]])
    }

    @Test("a run of blank lines is handed on once, counted, whatever their line breaks; a row of empty cells is a row")
    func blankRuns() {
        var parser = CSVStream()
        var rows: [String] = []
        let take = { (row: CSVStream.Row) in
            switch row {
            case .cells(let cells): rows.append(cells.joined(separator: "|"))
            case .oversized: rows.append("oversized")
            case .blank(let lines): rows.append("blank \(lines)")
            }
        }
        parser.feed("number\r\n\r\n\n\r" + String(repeating: "\n", count: 100_000) + "1,a\n,\n\"\"\n\n", emit: take)
        parser.finish(emit: take)
        // CRLF, LF, then CR followed by the first of the 100,000 LFs (one line break): 100,002 blank lines.
        #expect(rows == ["number", "blank 100002", "1|a", "|", "", "blank 1"])
    }
}

/// The one CSV writer: formulas neutralised everywhere, long and zero-led digits kept for Excel.
@Suite("CSV cells for spreadsheets")
struct CSVLineTests {
    @Test("a cell that would run as a formula is text; Excel gets long and zero-led digits as =\"…\"")
    func cells() {
        for hostile in ["=HYPERLINK(\"http://x\",\"y\")", "@SUM(A1)", "+1+cmd|' /C calc'!A0", "-2+3", "\tx", "\r=1"] {
            let cell = CSVLine.cell(hostile, excel: false)
            let unquoted = cell.hasPrefix("\"") ? String(cell.dropFirst()) : cell
            #expect(unquoted.hasPrefix("'"), "\(hostile) → \(cell)")
        }
        #expect(CSVLine.cell("-", excel: false) == "-")
        #expect(CSVLine.cell("=\"327754459830\"", excel: false) == "\"=\"\"327754459830\"\"\"", "Excel's text form kept")
        #expect(CSVLine.cell("=\"a\"&B1", excel: false).contains("'="), "anything more is a formula")
        #expect(CSVLine.cell("327754459830", excel: true) == "\"=\"\"327754459830\"\"\"")
        #expect(CSVLine.cell("0123", excel: true) == "\"=\"\"0123\"\"\"")
        #expect(CSVLine.cell("12345678901", excel: true) == "12345678901", "11 digits Excel keeps")
        #expect(CSVLine.cell("327754459830", excel: false) == "327754459830")
        #expect(CSVLine.cell("3277-5445-9830", excel: true) == "3277-5445-9830")
        #expect(CSVLine.make(["a,b", "say \"hi\"", "x"], excel: false) == "\"a,b\",\"say \"\"hi\"\"\",x")
    }
}

@Suite("lookup failures said by cause")
struct FailureDigestTests {
    @Test("10,000 numbers of one cause are one line; past 20 causes the rest are counted; one number is named")
    func grouped() throws {
        var digest = FailureDigest()
        let numbers = ValidNumbers.numbers(10_030)
        for number in numbers.prefix(10_000) {
            digest.add(number, "this client does not serve japanpost")
        }
        for (index, number) in numbers.dropFirst(10_000).enumerated() {
            digest.add(number, "\(number.formatted) was refused for reason \(index)")
        }
        let lines = digest.lines
        #expect(lines.count == 20)
        #expect(lines[0].hasPrefix("this client does not serve japanpost: 10,000 numbers ("))
        #expect(lines[0].hasSuffix(", and 9,997 more)"))
        #expect(lines[1] == "\(numbers[10_000].formatted): … was refused for reason 0")
        #expect(lines[19] == "12 more numbers could not be looked up, for 12 other causes", "31 causes, 19 shown")
        #expect(digest.total == 10_030)
    }
}

@Suite("the time left")
struct TimeLeftTests {
    @Test("each carrier's schedule counts, side by side; after a few seconds the pace answers came at corrects it")
    func estimate() {
        // 100 numbers at Sagawa, one a second, queued: the schedule says 100 s, not Yamato's 10 requests.
        #expect(TrackProgress.secondsLeft(remaining: 100, scheduled: [0, 100, 0], elapsed: 0, answered: 0, interval: 1) == 100)
        // Nothing queued yet: Yamato's pace, ten a request.
        #expect(TrackProgress.secondsLeft(remaining: 95, scheduled: [], elapsed: 1, answered: 5, interval: 1) == 10)
        // 20 s in, 40 answered: 60 left at two a second is 30 s, more than the schedules say.
        #expect(TrackProgress.secondsLeft(remaining: 60, scheduled: [6, 12], elapsed: 20, answered: 40, interval: 1) == 30)
        #expect(TrackProgress.secondsLeft(remaining: 0, scheduled: [5], elapsed: 20, answered: 40, interval: 1) == 0)
    }
}
