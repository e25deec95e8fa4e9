import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// What is masked in a kept page, and that nothing else changes.
@Suite("Page redaction")
struct PageRedactionTests {
    private static let number = ValidNumbers.numbers(1, from: 64_000_000_000)[0]

    @Test("only markup and the carriers' words stay: numbers, dates, names, offices, scripts and attribute values masked in the same shape")
    func masks() throws {
        let digits = Self.number.digits
        let page = """
            <html><head><title>追跡 \(digits)</title><script>var n = "\(Self.number.formatted)"; var s = "山田様";</script></head>
            <body><div class="parts-tracking-invoice-block" data-no="\(digits)">
            <a href="/t?okurijoNo=\(digits)">\(Self.number.formatted)</a>
            <p>2026/12/02 14:05 配達完了</p>
            <dl><dt>ご依頼主</dt><dd>黒猫 花子 様</dd><dt>お届け先：</dt><dd>東京都荒川区&nbsp;1-2-3</dd></dl>
            <p>お届け先：東京都</p>
            <p>荒川営業所 TEL:0570-01-0659 FAX:０３－１２３４－５６７８</p><p>〒116-0014</p>
            </body></html>
            """
        let masked = PageRedaction.redact(page, numbers: [Self.number])
        #expect(!masked.contains(digits) && !masked.contains(Self.number.formatted))
        #expect(masked.contains("data-no=\"000000000000\"") && masked.contains("okurijoNo=000000000000"))
        #expect(masked.contains(">0000-0000-0000</a>"))
        #expect(masked.contains("0000/00/00 00:00 配達完了"), "statuses stay; dates keep their shape")
        #expect(masked.contains("<dd>○○ ○○ 様</dd>"))
        #expect(masked.contains("<dd>○○○○○○&nbsp;○○○○○</dd>"), "the value after a label, references kept")
        #expect(masked.contains("<p>お届け先：○○○</p>"))
        #expect(masked.contains("TEL:0000-00-0000 FAX:００－００００－００００"))
        #expect(masked.contains("〒000-0000"))
        #expect(masked.contains(#"xxx x = "○○○";"#), "a script is masked whole")
        #expect(masked.contains("<dt>ご依頼主</dt>") && masked.contains("○○営業所"), "an office's name is masked, its kind kept")
        #expect(
            Self.tags(masked).filter { !$0.contains("script") }
                == Self.tags(page).filter { !$0.contains("script") }.map { $0.replacingOccurrences(of: digits, with: "000000000000") })
        #expect(masked.unicodeScalars.count == page.unicodeScalars.count, "same shape")
    }

    @Test("a Shift_JIS page is masked in its own encoding; bytes that cannot be decoded and encoded back exactly are not kept")
    func encodings() throws {
        let text = "<html><body><dd>佐川 太郎 様</dd><p>\(Self.number.digits)</p></body></html>"
        let bytes = try #require(text.data(using: .shiftJIS))
        let masked = try #require(PageRedaction.redact(bytes, charset: "Windows-31J", numbers: []))
        #expect(String(data: masked, encoding: .shiftJIS) == "<html><body><dd>○○ ○○ 様</dd><p>000000000000</p></body></html>")
        #expect(PageRedaction.redact(Data([0x3C, 0xFF, 0xFE, 0x3E]), charset: "UTF-8", numbers: []) == nil)
        #expect(PageRedaction.redact(Data("<p>x</p>".utf8), charset: "ISO-2022-JP", numbers: []) == nil)
    }

    static func tags(_ page: String) -> [String] {
        var tags: [String] = []
        var rest = Substring(page)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            tags.append(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }
}
