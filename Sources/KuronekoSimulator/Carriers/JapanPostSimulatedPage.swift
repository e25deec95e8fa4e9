import Foundation
import Kuroneko

/// Japan Post's pages as the simulator serves them, in the layout of the reconstructed fixtures: the `direct`
/// page (the detail of a parcel it knows, else the not-found or wrong-length row) and the search of up to ten
/// numbers (the 照会結果 list, each number's latest row only; with one number the detail page, as the real
/// site answers).
public enum JapanPostSimulatedPage {
    public static func detail(for text: String, now: Date, epoch: Date) -> Data {
        let number = try? TrackingNumber(parsing: text)
        let steps = number.flatMap { SimulatedCarriers.steps(of: $0, at: .japanPost, now: now, epoch: epoch) } ?? []
        let shownNumber = shown(number, text)
        let content: String
        if let number, !steps.isEmpty {
            var rows = ""
            for step in steps {
                rows += "<tr><td rowspan=\"2\" class=\"w_120\">\(date(step.at))</td><td rowspan=\"2\" class=\"w_150\">"
                    + "\(step.label)</td><td rowspan=\"2\" class=\"w_180\">&nbsp;</td><td class=\"w_105\">\(step.place)"
                    + "</td><td rowspan=\"2\" class=\"w_105\">\(step.region)</td></tr>\n"
                    + "<tr><td class=\"w_105\">100-8799</td></tr>\n"
            }
            content = """
                <table class="tableType01 txt_c m_b5" summary="配達状況詳細">
                <tr><th class="w_180">お問い合わせ番号</th><th class="w_380">商品種別</th><th class="w_100">付加サービス</th></tr>
                <tr><td class="w_180">\(shownNumber)</td><td class="w_380">\(product(number))</td><td class="w_100">&nbsp;</td></tr>
                </table>
                <table class="tableType01 txt_c m_b5" summary="履歴情報">
                <tr><th rowspan="2" class="w_120">状態発生日</th><th rowspan="2" class="w_150">配送履歴</th><th rowspan="2" class="w_180">詳細</th><th class="w_105">取扱局</th><th rowspan="2" class="w_105">県名等</th></tr>
                <tr><th class="w_105">郵便番号</th></tr>
                \(rows)</table>
                \(offices(SimulatedCarriers.offices(of: number, at: .japanPost)))
                """
        } else {
            content = resultTable(rows: messageRow(number, text))
        }
        return page(title: "詳細検索結果", content: content)
    }

    /// The answer to a search of `texts` (up to ten): one number's detail page, or the list of each one's
    /// latest row.
    public static func search(for texts: [String], now: Date, epoch: Date) -> Data {
        guard texts.count > 1 else { return detail(for: texts.first ?? "", now: now, epoch: epoch) }
        var rows = ""
        for text in texts {
            let number = try? TrackingNumber(parsing: text)
            let steps = number.flatMap { SimulatedCarriers.steps(of: $0, at: .japanPost, now: now, epoch: epoch) } ?? []
            guard let number, let latest = steps.last else {
                rows += messageRow(number, text)
                continue
            }
            rows += "<tr><td rowspan=\"2\" class=\"w_120\"><a href=\"/services/srv/search/direct?reqCodeNo1="
                + "\(number.digits)&amp;searchKind=S002&amp;locale=ja\">\(number.formatted)</a></td>"
                + "<td rowspan=\"2\" class=\"w_80\">\(product(number))</td><td rowspan=\"2\" class=\"w_100\">"
                + "\(date(latest.at))</td><td rowspan=\"2\" class=\"w_180\">\(latest.label)</td>"
                + "<td class=\"w_105\">\(latest.place)</td><td rowspan=\"2\" class=\"w_105\">\(latest.region)</td></tr>\n"
                + "<tr><td class=\"w_105\">100-8799</td></tr>\n"
        }
        return page(title: "個別番号検索結果", content: resultTable(rows: rows))
    }

    private static func product(_ number: TrackingNumber) -> String {
        number.format == .elevenDigits ? "簡易書留" : number.format == .international ? "EMS" : "ゆうパック"
    }

    private static func shown(_ number: TrackingNumber?, _ text: String) -> String {
        number?.formatted ?? text.filter { $0.isNumber || $0.isLetter }
    }

    private static func date(_ at: JapanDateTime) -> String {
        "\(at.year)/\(two(at.month))/\(two(at.day))" + (at.time.map { " " + $0.text } ?? "")
    }

    /// The 照会結果 table around `rows`.
    private static func resultTable(rows: String) -> String {
        """
        <table class="tableType01 txt_c m_b5" summary="照会結果">
        <tr><th rowspan="2" class="w_120">お問い合わせ番号</th><th rowspan="2" class="w_80">商品種別</th><th rowspan="2" class="w_100">最新年月日</th><th rowspan="2" class="w_180">最新状態</th><th class="w_105">最新取扱局</th><th rowspan="2" class="w_105">県名等</th></tr>
        <tr><th class="w_105">郵便番号</th></tr>
        \(rows)</table>
        """
    }

    /// The row of a number the page does not know (or cannot read).
    private static func messageRow(_ number: TrackingNumber?, _ text: String) -> String {
        let message =
            number == nil
            ? "＊＊ お問い合わせ番号の入力桁数に誤りがあります。11桁から13桁で入力してください。"
            : "＊＊ お問い合わせ番号が見つかりません。お問い合わせ番号をご確認の上、お近くの取扱店にお問い合わせください。"
        return "<tr><td class=\"w_120\">\(shown(number, text))</td><td colspan=\"5\" class=\"txt_l\">"
            + "<font color=\"ff0000\">\(message)</font></td></tr>\n"
    }

    private static func page(title: String, content: String) -> Data {
        let html = """
            <!DOCTYPE html>
            <html lang="ja"><head><meta charset="UTF-8"><title>\(title)｜日本郵便株式会社</title></head>
            <body><div class="indent">
            \(content)
            </div></body></html>
            """
        return Data(html.utf8)
    }

    /// お問い合わせ先: the 窓口店 table, when the page names offices.
    private static func offices(_ offices: [CarrierOffice]) -> String {
        guard !offices.isEmpty else { return "" }
        let rows = offices.map {
            "<tr><td class=\"w_105\">\($0.role)</td><td class=\"w_120\">\($0.name)</td><td class=\"w_180\">\($0.telephone ?? "")</td></tr>"
        }
        return "<h3 class=\"ttl-h3\">お問い合わせ先</h3>\n<table class=\"tableType03 m_b5\" summary=\"窓口店\">\n"
            + "<tr><th>区分</th><th>取扱局</th><th>電話番号</th></tr>\n" + rows.joined(separator: "\n") + "\n</table>"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
