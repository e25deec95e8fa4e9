import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// A kept page is private by construction: personal data planted where no rule looks for it is gone.
@Suite("Page masking")
struct PageMaskingTests {
    /// Each planted item: where it goes in the page, and the words of it that must not be found in the kept page.
    static let planted: [(markup: String, secrets: [String])] = [
        ("<p>お届け先：千葉県千葉市1-1</p>", ["千葉県千葉市", "千葉市1-1"]),
        ("<span>03 5555 0123</span>", ["5555 0123"]),
        ("<span>(03)5555-0124</span>", ["5555-0124"]),
        ("<span>03–5555–0125</span>", ["5555–0125"]),
        ("<span>03ー5555ー0126</span>", ["5555ー0126"]),
        ("<span>03.5555.0127</span>", ["5555.0127"]),
        ("<span>+81-3-5555-0128</span>", ["+81", "5555-0128"]),
        ("<p>連絡先 hanako.kuroneko@example.jp</p>", ["hanako", "kuroneko@", "example.jp"]),
        (#"<a href="mailto:taro.yamada@example.com">連絡</a>"#, ["taro", "yamada", "example.com"]),
        ("<td>150-0001</td>", ["150-0001"]),
        ("<td>郵便番号：150-0002</td>", ["150-0002"]),
        ("<div>山本さん</div>", ["山本"]),
        ("<div>株式会社黒猫商事 御中</div>", ["黒猫商事", "株式会社"]),
        (#"<div data-recipient="佐藤 花子"></div>"#, ["佐藤", "花子"]),
        (#"<span title="鈴木 一郎">x</span>"#, ["鈴木", "一郎"]),
        (#"<input type="text" value="高橋 次郎">"#, ["高橋", "次郎"]),
        (#"<script>var who = {"name":"田中 三郎","tel":"090-1111-2222"};</script>"#, ["田中", "三郎", "1111-2222"]),
        ("<p>配達先 大阪府大阪市北区梅田3-1-1</p>", ["大阪市北区", "梅田"]),
        ("<li>3277 5445 9830</li>", ["3277 5445 9830", "9830"]),
        ("<li>3277・5445・9831</li>", ["3277・5445", "9831"]),
        ("<!-- 伊藤 四郎 080-3333-4444 -->", ["伊藤", "四郎", "3333-4444"]),
        ("<style>/* 渡辺 五郎 */ .x { color: red }</style>", ["渡辺", "五郎"]),
        (#"<a href="/inquiry?name=nakamura&amp;tel=0312345678#yamashita">問い合わせ</a>"#, ["nakamura", "0312345678", "yamashita"]),
        (#"<img alt="小林 六郎" src="/a.png">"#, ["小林", "六郎"]),
        (#"<input placeholder="加藤 七子">"#, ["加藤", "七子"]),
        ("<p>Hanako Yamada</p>", ["Hanako", "Yamada"]),
        ("<p>０９０－１２３４－５６７８</p>", ["１２３４－５６７８"]),
        ("<p>&#26494;&#30000; 様</p>", ["&#26494;", "&#30000;", "松田"]),
        ("<p>やまだ はなこ様</p>", ["やまだ", "はなこ"]),
        ("<p>ヤマダ ハナコ</p>", ["ヤマダ", "ハナコ"]),
        ("<p>会員番号 12345678</p>", ["12345678"]),
        ("<p>生年月日 1985年4月1日</p>", ["1985"]),
        ("<p>1-2-3 Shibuya, Tokyo</p>", ["Shibuya", "Tokyo"]),
        ("<p>ご注文 ORDER-98765</p>", ["ORDER", "98765"]),
        (#"<meta name="author" content="Kimura Hachiro">"#, ["Kimura", "Hachiro"]),
        ("<textarea>木村 八郎 の メモ</textarea>", ["木村", "八郎"]),
        ("<dd>ｷﾑﾗ ﾊﾁﾛｳ</dd>", ["ｷﾑﾗ", "ﾊﾁﾛｳ"]),
        ("<p>LINE ID: kuroneko_hanako</p>", ["kuroneko_hanako"]),
    ]

    @Test("38 kinds of personal data planted in unknown places of a changed page: none is in the kept page; the markup and the carriers' words stay")
    func planted() throws {
        #expect(Self.planted.count >= 30)
        let original = try String(
            contentsOf: Fixtures.currentDirectory.appendingPathComponent("single-delivered.html"), encoding: .utf8)
        // A redesign: the planted block in the page's body, before its first block and at its end.
        let block = "<section class=\"new-layout\">" + Self.planted.map(\.markup).joined(separator: "\n") + "</section>"
        let half = Self.planted.count / 2
        let page = original
            .replacingOccurrences(of: "<body", with: "<body data-owner=\"黒猫 花子\"")
            .replacingOccurrences(of: "</body>", with: block + "</body>")
            .replacingOccurrences(
                of: "<main", with: "<aside>" + Self.planted[..<half].map(\.markup).joined() + "</aside><main")
        let kept = PageRedaction.redact(page, numbers: [])
        for (markup, secrets) in Self.planted {
            for secret in secrets {
                #expect(!kept.contains(secret), "\(secret) (planted as \(markup)) is in the kept page")
            }
        }
        #expect(!kept.contains("黒猫 花子"))
        // What the carrier says to everyone stays: its status word, its labels, its honorifics.
        for word in ["配達完了", "お届け先", "様", "伝票番号"] where page.contains(word) {
            #expect(kept.contains(word), "\(word) was masked")
        }
        // The markup is unchanged outside scripts and styles, whose content is masked whole.
        let keptTags = Self.tags(kept)
        let pageTags = Self.tags(page)
        let first = zip(keptTags, pageTags).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == nil && keptTags.count == pageTags.count, "first difference: \(first.map { "\(keptTags[$0]) for \(pageTags[$0])" } ?? "count")")
    }

    @Test("the placeholders keep each character's shape; spaces and punctuation stay")
    func shapes() {
        #expect(PageMasking.mask("<p>Ab 1２ 山ｱ、</p>") == "<p>Xx 0０ ○○、</p>")
        #expect(PageMasking.mask(#"<a href="https://example.com/track/abc?no=123#top">x</a>"#)
            == #"<a href="https://example.com/track/abc?no=000#xxx">x</a>"#)
        #expect(PageMasking.mask(#"<div class="tracking-box data" id="A001">配達完了</div>"#)
            == #"<div class="tracking-box data" id="A001">配達完了</div>"#)
        #expect(PageMasking.mask("<p>a < b & c</p>") == "<p>x < x & x</p>")
        // A tag that never closes and a comment that never ends mask to the end, and nothing is lost of the markup.
        #expect(PageMasking.mask("<p>山田<!-- 花子") == "<p>○○<!-- ○○")
        #expect(PageMasking.mask("<p title=\"花子") == "<p title=\"○○")
    }

    static func tags(_ page: String) -> [String] {
        let outside = page.replacingOccurrences(
            of: #"(?s)(<(script|style|textarea)\b[^>]*>).*?(</\2>)"#, with: "$1$3", options: .regularExpression)
            .replacingOccurrences(of: "(?s)<!--.*?-->", with: "<!---->", options: .regularExpression)
        var tags: [String] = []
        var rest = Substring(outside)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            // The tag's name and its attributes' names.
            let tag = String(rest[open...close])
            tags.append(tag.replacingOccurrences(of: #"=("[^"]*"|'[^']*'|[^\s>]*)"#, with: "=", options: .regularExpression))
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }
}
