import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// Seino's reconstructed pages (Tests/Fixtures/seino/current, Shift_JIS as its pages were) give exactly the
/// shipments of their expected.json: days without month or year placed after 発送日, across a month and a
/// year; and its numbers, links and mails are recognised.
@Suite("Seino")
struct SeinoTests {
    static let cases = Fixtures.cases(ofCarrier: "seino")

    @Test("every page gives exactly its expected shipments", arguments: cases)
    func page(page: Fixtures.Case) throws {
        let shipments = try SeinoPageParser().parse(try page.html, now: page.now)
        #expect(try JSON(encoding: shipments) == page.shipments)
        let found = try CarrierPages.parse(try page.html, now: page.now)
        #expect(found.map(\.carrier) == Array(repeating: .seino, count: shipments.count))
    }

    @Test("the fixture list is complete")
    func complete() {
        #expect(Self.cases.map(\.name) == ["multi-3-mixed", "single-delivered", "year-boundary"])
    }

    @Test("10 digits: Sagawa first, then Seino")
    func detection() throws {
        #expect(try TrackingNumber(parsing: "3190123456").candidates == [.sagawa, .seino])
        #expect(try TrackingNumber(parsing: "3190123456", for: .seino).digits == "3190123456")
        #expect(throws: TrackingNumberError.self) { try TrackingNumber(parsing: "3277-5445-9830", for: .seino) }
        #expect(try Carrier(named: "SEINO") == .seino)
    }

    @Test("a day without its month: after the ship date, else the latest not after tomorrow")
    func days() throws {
        let today = try #require(JapanDateTime(year: 2026, month: 12, day: 3))
        let shipped = JapanDateTime(year: 2026, month: 11, day: 28)
        #expect(SeinoPageParser.eventTime("02日 10:00", shipDate: shipped, today: today)?.iso8601 == "2026-12-02T10:00:00+09:00")
        #expect(SeinoPageParser.eventTime("29日 10:00", shipDate: shipped, today: today)?.iso8601 == "2026-11-29T10:00:00+09:00")
        #expect(SeinoPageParser.eventTime("29日 10:00", shipDate: nil, today: today)?.iso8601 == "2026-11-29T10:00:00+09:00")
        #expect(SeinoPageParser.eventTime("04日 10:00", shipDate: nil, today: today)?.iso8601 == "2026-12-04T10:00:00+09:00")
        #expect(SeinoPageParser.eventTime("99日 10:00", shipDate: nil, today: today) == nil)
        #expect(SeinoPageParser.eventTime("", shipDate: nil, today: today) == nil)
    }

    @Test("a page whose detail tables do not match its summary rows is refused")
    func mismatch() throws {
        let page = try #require(Self.cases.first { $0.name == "multi-3-mixed" })
        let text = String(decoding: try page.html, as: UTF8.self)
        // The summary attribute is ASCII-free in Shift_JIS; drop the last detail table by its closing rows.
        var bytes = try page.html
        let marker = Data("<h3 class=\"num\">".utf8)
        let last = try #require(bytes.range(of: marker, options: .backwards))
        let end = try #require(bytes.range(of: Data("</table>".utf8), in: last.upperBound..<bytes.endIndex))
        bytes.removeSubrange(last.lowerBound..<end.upperBound)
        #expect(!text.isEmpty)
        let error = try #require(throws: TrackingPageError.self) { try SeinoPageParser().parse(bytes, now: page.now) }
        #expect(error.code == .blockCountMismatch)
    }

    @Test("a shipping mail's Seino link is Seino's parcel")
    func mail() throws {
        let text = """
            From: shop@example.co.jp
            Subject: shipped
            Content-Type: text/plain; charset=UTF-8

            西濃運輸（カンガルー便）にて発送しました。
            https://track.seino.co.jp/cgi-bin/gnpquery.pgm?GNPNO1=3190123456
            """
        let parcels = ShippingMailReader.read(Data(text.utf8)).parcels
        #expect(parcels.map(\.number.digits) == ["3190123456"])
        #expect(parcels.first?.carrier == .seino)
    }
}
