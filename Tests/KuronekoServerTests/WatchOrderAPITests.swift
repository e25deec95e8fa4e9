import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Testing

/// `GET /v1/watches?sort=…&offset=…`: a page of the list in a person's order at any offset with the list's
/// size, the download in the same order, and one clear 400 for anything else.
@Suite("API: the list in a person's order", .timeLimit(.minutes(10)))
struct WatchOrderAPITests {
    private func numbers(_ response: HTTPResponse) throws -> [String] {
        try JSON(data: response.body)["watches"]?.elements.compactMap { $0["number"]?.string } ?? []
    }

    @Test("any offset in any order, with the list's size and the next offset; the CSV follows the order")
    func sortedPages() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(5).map(\.digits)
        for number in numbers {
            #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number)"}"#).status == 201)
        }
        let first = await harness.get("/v1/watches?sort=-added&limit=2")
        #expect(first.status == 200)
        let page = try JSON(data: first.body)
        #expect(try self.numbers(first) == [numbers[4], numbers[3]])
        #expect(page["total"]?.int == 5 && page["offset"]?.int == 0 && page["next_offset"]?.int == 2)
        #expect(page["sort"]?.string == "-added" && page["next_cursor"] == .null)
        let last = await harness.get("/v1/watches?sort=-added&limit=2&offset=4")
        #expect(try self.numbers(last) == [numbers[0]])
        #expect(try JSON(data: last.body)["next_offset"] == .null)
        #expect(try self.numbers(await harness.get("/v1/watches?sort=number")) == numbers.sorted())
        // An offset alone reads the order added.
        #expect(try self.numbers(await harness.get("/v1/watches?offset=3")) == Array(numbers[3...]))
        #expect(try self.numbers(await harness.get("/v1/watches?sort=added&offset=99")) == [])

        let csv = String(decoding: await harness.get("/v1/watches?format=csv&sort=-added").sentBody, as: UTF8.self)
        let rows = csv.split(separator: "\n").dropFirst().map { String($0.prefix(12)) }
        #expect(rows == numbers.reversed(), "\(csv)")
    }

    @Test(
        "a sort, an offset or a cursor that cannot be read: one 400 naming it and what would do",
        arguments: [
            ("sort=sideways", "sort \"sideways\" is not one of added, -added, status"),
            ("sort=%00status", "is not one of"), ("sort=", "is not one of"),
            ("offset=-1", "offset \"-1\" is not a number from 0 to 10000000"),
            ("offset=abc", "offset \"abc\" is not a number"), ("offset=10000001", "from 0 to 10000000"),
            ("sort=status&offset=1e3", "offset \"1e3\""),
            ("sort=status&cursor=5", "cursor pages the list in the order added; with sort or offset, page by offset"),
            ("sort=status&limit=501", "limit \"501\" is not a number from 1 to 500"),
            ("format=csv&sort=up", "sort \"up\""),
        ])
    func refused(query: String, detail: String) async throws {
        let harness = await Harness()
        let response = await harness.get("/v1/watches?\(query)")
        #expect(response.status == 400)
        let text = try JSON(data: response.body)["detail"]?.string ?? ""
        #expect(text.contains(detail), "\(text)")
        #expect(!text.contains("\n"))
    }
}
