import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The parser refuses what it does not understand with a typed error, never an empty or partial success.
@Suite("Loud errors", .timeLimit(.minutes(10)))
struct LoudErrorTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test(
        "real legacy pages, excerpts and innerText captures are refused",
        .enabled(if: Fixtures.realAvailable, Comment(rawValue: Fixtures.realMissingReason)))
    func realPagesRefused() throws {
        let pages = Fixtures.realPages
        #expect(pages.count >= 16)
        for page in pages {
            let error = #expect(throws: TrackingPageError.self, "\(page.lastPathComponent)") {
                try TrackingPageParser().parse(try Data(contentsOf: page), now: now)
            }
            #expect(error?.message.isEmpty == false)
        }
    }

    @Test(
        "a legacy Shift_JIS page is named an unrecognised layout, its title decoded and the older layout named",
        .enabled(if: Fixtures.realAvailable, Comment(rawValue: Fixtures.realMissingReason)))
    func legacyLayout() throws {
        let page = Fixtures.realDirectory.appendingPathComponent("legacy-2009/list_count03.html")
        let numbers = try ["1", "2", "3"].map { _ in try TrackingNumber(parsing: "3277-5445-9830") }
        let error = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(try Data(contentsOf: page), expecting: numbers, now: now)
        }
        #expect(error?.code == .unrecognizedLayout)
        #expect(
            error?.message
                == "unrecognised page layout: expected 3 parcel blocks for 3 numbers "
                + "(div.parts-tracking-invoice-block), found 0; page title: \"クロネコヤマトの荷物お問い合わせシステム\"; "
                + "this is Yamato's older page (Shift_JIS tables and font tags, about 2009, replaced about September "
                + "2021), which Kuroneko does not read: look the number up again, or save today's page")
    }

    @Test("empty and blank bodies", arguments: ["", " ", "\n\r\n\t"])
    func empty(body: String) {
        let error = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(Data(body.utf8), now: now)
        }
        #expect(error?.code == .emptyBody)
    }

    @Test("text copied from a browser window is said to be text, not the page, with how to save the page")
    func plainText() {
        let copied = """
            お問い合わせ結果
            伝票番号 3277-5445-9830
            配達完了 12月03日 14:20 ＺＯＺＯ支店
            """
        for parser in [
            { try TrackingPageParser().parse(Data(copied.utf8), now: now) },
            { try SagawaPageParser().parse(Data(copied.utf8), now: now) },
            { try JapanPostPageParser().parse(Data(copied.utf8), now: now) },
        ] as [() throws -> [Shipment]] {
            do {
                _ = try parser()
                Issue.record("text was read as a page")
            } catch let error as TrackingPageError {
                #expect(error.code == .plainText)
                #expect(error.message.contains("this is text, not the page's HTML") && error.message.contains("Save Page As"))
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("a page cut off anywhere is refused", arguments: Fixtures.currentCases)
    func truncatedEverywhere(page: Fixtures.Case) throws {
        let html = try page.html
        var offsets = Array(stride(from: 1, to: html.count, by: 61))
        offsets += [html.count - 2, html.count - 9]
        for offset in offsets {
            #expect(throws: TrackingPageError.self, "cut at \(offset) of \(html.count)") {
                try TrackingPageParser().parse(html.prefix(offset), now: page.now)
            }
        }
    }

    @Test("binary noise is refused", arguments: 0..<40)
    func noise(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let count = Int.random(in: 1...20_000, using: &generator)
        var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if seed.isMultiple(of: 2) { bytes += Array("</html>".utf8) }
        #expect(throws: TrackingPageError.self) { try TrackingPageParser().parse(bytes, now: now) }
    }

    @Test("an error page or some other page is refused with its title")
    func otherPage() {
        let page = Data(
            "<html><head><title>システムエラー</title></head><body><p>ただいまアクセスが集中しております。</p></body></html>".utf8)
        let error = #expect(throws: TrackingPageError.self) { try TrackingPageParser().parse(page, now: now) }
        #expect(error?.code == .unrecognizedLayout)
        #expect(error?.message.hasSuffix("page title: \"システムエラー\"") == true)
    }

    @Test(
        "removing the markup every block needs is refused",
        arguments: [
            ("parts-tracking-invoice-block", TrackingPageError.Code.unrecognizedLayout),
            ("tracking-invoice-block-title", .malformedBlock),
            ("tracking-invoice-block-state-title", .malformedBlock),
        ])
    func requiredMarkupRemoved(classToken: String, code: TrackingPageError.Code) throws {
        for page in Fixtures.currentCases {
            let html = String(decoding: try page.html, as: UTF8.self)
                .replacingOccurrences(of: "class=\"\(classToken)\"", with: "class=\"removed\"")
            let error = #expect(throws: TrackingPageError.self, "\(page.name)") {
                try TrackingPageParser().parse(Data(html.utf8), now: page.now)
            }
            #expect(error?.code == code, "\(page.name)")
        }
    }

    /// A missing tag can turn one valid page into another (a note that is no longer there), so the claim is
    /// the one that matters: every parcel is accounted for, or the page is refused.
    @Test("removing any one tag never loses a parcel silently", arguments: Fixtures.currentCases)
    func anyTagRemoved(page: Fixtures.Case) throws {
        let html = String(decoding: try page.html, as: UTF8.self)
        let expectedNumbers = page.shipments.elements.compactMap { $0["tracking_number"] }
        let tags = tagRanges(in: html, from: html.range(of: "tracking-invoice-block-wrap")?.lowerBound)
        #expect(tags.count > 10)
        for range in tags {
            var damaged = html
            damaged.removeSubrange(range)
            do {
                let shipments = try TrackingPageParser().parse(Data(damaged.utf8), now: page.now)
                let numbers = try JSON(encoding: shipments).elements.compactMap { $0["tracking_number"] }
                #expect(numbers == expectedNumbers, "removing \(html[range]) lost a parcel silently")
            } catch is TrackingPageError {
                continue
            }
        }
    }

    @Test("a history date in an unknown form is refused, not guessed")
    func unknownDateForm() throws {
        let page = try #require(Fixtures.currentCases.first { $0.name == "single-delivered" })
        let html = String(decoding: try page.html, as: UTF8.self)
            .replacingOccurrences(of: "10月28日 11:30", with: "令和8年10月28日")
        let error = #expect(throws: TrackingPageError.self) {
            try TrackingPageParser().parse(Data(html.utf8), now: page.now)
        }
        #expect(error?.code == .malformedBlock)
        #expect(error?.message.contains("\"令和8年10月28日\"; expected MM月DD日 HH:MM") == true)
    }

    private func tagRanges(in html: String, from start: String.Index?) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var cursor = start ?? html.startIndex
        while let open = html[cursor...].firstIndex(of: "<"), let close = html[open...].firstIndex(of: ">") {
            ranges.append(open..<html.index(after: close))
            cursor = html.index(after: close)
        }
        return ranges
    }
}

/// SplitMix64: a small deterministic generator so noise tests fail the same way every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
