import Foundation
import Kuroneko

/// Sagawa's pages as the simulator serves them, in the layout of the reconstructed fixtures: Windows-31J
/// declared, every non-ASCII character a decimal character reference.
public enum SagawaSimulatedPage {
    /// The result page for up to ten numbers, with the form (and its state) to ask again.
    public static func results(for numbers: [String], now: Date, epoch: Date, state: (tree: String, state: String))
        -> Data
    {
        var lists = ""
        var details = ""
        for (offset, text) in numbers.enumerated() {
            let position = offset + 1
            let number = try? TrackingNumber(parsing: text)
            let owned = number.map { SimulatedCarriers.owner(of: $0) == .sagawa } ?? false
            let steps = number.flatMap { owned ? SimulatedCarrierParcel(number: $0, carrier: .sagawa, epoch: epoch) : nil }
            let shown = steps?.steps(at: now) ?? []
            let digits = text.filter(\.isNumber)
            let (label, sentence) =
                number == nil
                ? ("該当なし", "恐れ入りますが、お問い合せ送り状NOをお確かめください。")
                : shown.last.map { ($0.label, Self.sentence($0.code)) }
                    ?? ("該当なし", "お荷物データが登録されておりません。")
            let body = shown.isEmpty ? sentence : "<p class=\"txt_state\">\(sentence)</p>"
            lists += """
                <table class="table_basic ttl02" id="list\(position)" summary="お荷物の状況">
                <tr><th class="detail"><p class="link_detail"><a href="#detail\(position)">詳細\(position)</a></p></th>
                <th class="number nowrap">\t\(digits)\t</th>
                <th class="state_box"><div class="state_wrap"><span class="state">\(label)</span></div></th></tr>
                <tr><td colspan="3">\(body)</td></tr></table>

                """
            var detail = "<tr><th class=\"w_25\">お問い合せ送り状No.</th><td>\(digits)</td></tr>"
            if let number, steps != nil, let first = shown.first {
                detail += "<tr><th>出荷日</th><td>\(first.at.year)年\(two(first.at.month))月\(two(first.at.day))日</td></tr>"
                for office in SimulatedCarriers.offices(of: number, at: .sagawa) {
                    detail += "<tr><th>\(office.role)に関するお問い合せ</th><td>\(office.name)  TEL:\(office.telephone ?? "")"
                        + "</td></tr>"
                }
                detail += "</table><table class=\"table_basic table_okurijo_detail2\" summary=\"お荷物の履歴\">"
                detail += "<tr><th class=\"w_30\">荷物状況</th><th class=\"w_30\">日時</th><th>担当営業所</th></tr>"
                for (index, step) in shown.enumerated() {
                    let arrow = index == shown.count - 1 ? "⇒" : "↓"
                    let time = step.at.time.map { " " + $0.text } ?? ""
                    detail += "<tr><td>\(arrow)\(step.label)</td><td>\(two(step.at.month))/\(two(step.at.day))\(time)</td>"
                        + "<td>\(step.place)</td></tr>"
                }
            } else {
                detail += "<tr><th>詳細表示</th><td>\(sentence)</td></tr>"
            }
            details += """
                <dl class="okurijo_detail_box"><dt class="ttl03" id="dt\(position)">詳細\(position)</dt>
                <dd id="detail\(position)"><table class="table_basic table_okurijo_detail2" summary="お荷物の情報">
                \(detail)</table></dd></dl>

                """
        }
        let content = """
            <div class="table_module01 table_okurijo_index scroll" id="MainList">
            \(lists)</div>
            <div class="table_module01 table_okurijo_detail">
            \(details)</div>
            """
        return page(content: content + form(state))
    }

    /// The empty ten-number form, with fresh state.
    public static func form(state: (tree: String, state: String)) -> Data {
        page(content: form(state))
    }

    private static func form(_ state: (tree: String, state: String)) -> String {
        let inputs = (1...10).map { "<input type=\"text\" name=\"main:no\($0)\" value=\"\" maxlength=\"14\" />" }
        return """
            <form id="main" name="main" method="post" action="/p/sagawa/web/okurijoinput.jsp">
            \(inputs.joined(separator: "\n"))
            <input type="submit" name="main:toiStart" value="お問い合せ開始" />
            <input type="hidden" name="main_SUBMIT" value="1" />
            <input type="hidden" name="jsf_tree_64" id="jsf_tree_64" value="\(state.tree)" />
            <input type="hidden" name="jsf_state_64" id="jsf_state_64" value="\(state.state)" />
            <input type="hidden" name="jsf_viewid" id="jsf_viewid" value="/web/okurijoinput.jsp" />
            </form>
            """
    }

    private static func page(content: String) -> Data {
        let html = """
            <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
            <html lang="ja"><head>
            <meta http-equiv="Content-Type" content="text/html; charset=Windows-31J">
            <title>佐川急便 お荷物問い合わせサービス</title></head>
            <body><noscript>JavaScript対応ブラウザにてご利用ください。</noscript>
            \(content)
            </body></html>
            """
        return Data(referenced(html).utf8)
    }

    private static func sentence(_ code: StatusCode) -> String {
        switch code {
        case .infoReceived: "お荷物をお預かり致しました。"
        case .inTransit: "ただいま配達営業所へ輸送中です。"
        case .outForDelivery: "ただいまお届けに向かっております。"
        case .delivered: "お荷物のお届けが完了いたしました。"
        case .availableForPickup: "ご不在のため持ち帰りました。"
        default: "恐れ入りますが、営業所へお問い合わせください。"
        }
    }

    /// Every character beyond ASCII written as `&#N;`, as Sagawa's pages do.
    static func referenced(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII { result.unicodeScalars.append(scalar) } else { result += "&#\(scalar.value);" }
        }
        return result
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// Japan Post's `direct` page as the simulator serves it: the detail of a parcel it knows, else the
/// not-found (or wrong-length) row.
public enum JapanPostSimulatedPage {
    public static func detail(for text: String, now: Date, epoch: Date) -> Data {
        let number = try? TrackingNumber(parsing: text)
        let owned = number.map { SimulatedCarriers.owner(of: $0) == .japanPost } ?? false
        let steps = number.flatMap { owned ? SimulatedCarrierParcel(number: $0, carrier: .japanPost, epoch: epoch) : nil }?
            .steps(at: now) ?? []
        let shownNumber = number?.formatted ?? text.filter { $0.isNumber || $0.isLetter }
        let content: String
        if let number, !steps.isEmpty {
            let product = number.format == .elevenDigits ? "簡易書留" : number.format == .international ? "EMS" : "ゆうパック"
            var rows = ""
            for step in steps {
                let time = step.at.time.map { " " + $0.text } ?? ""
                rows += "<tr><td rowspan=\"2\" class=\"w_120\">\(step.at.year)/\(two(step.at.month))/\(two(step.at.day))"
                    + "\(time)</td><td rowspan=\"2\" class=\"w_150\">\(step.label)</td><td rowspan=\"2\" class=\"w_180\">"
                    + "&nbsp;</td><td class=\"w_105\">\(step.place)</td><td rowspan=\"2\" class=\"w_105\">\(step.region)"
                    + "</td></tr>\n<tr><td class=\"w_105\">100-8799</td></tr>\n"
            }
            content = """
                <table class="tableType01 txt_c m_b5" summary="配達状況詳細">
                <tr><th class="w_180">お問い合わせ番号</th><th class="w_380">商品種別</th><th class="w_100">付加サービス</th></tr>
                <tr><td class="w_180">\(shownNumber)</td><td class="w_380">\(product)</td><td class="w_100">&nbsp;</td></tr>
                </table>
                <table class="tableType01 txt_c m_b5" summary="履歴情報">
                <tr><th rowspan="2" class="w_120">状態発生日</th><th rowspan="2" class="w_150">配送履歴</th><th rowspan="2" class="w_180">詳細</th><th class="w_105">取扱局</th><th rowspan="2" class="w_105">県名等</th></tr>
                <tr><th class="w_105">郵便番号</th></tr>
                \(rows)</table>
                \(offices(SimulatedCarriers.offices(of: number, at: .japanPost)))
                """
        } else {
            let message =
                number == nil
                ? "＊＊ お問い合わせ番号の入力桁数に誤りがあります。11桁から13桁で入力してください。"
                : "＊＊ お問い合わせ番号が見つかりません。お問い合わせ番号をご確認の上、お近くの取扱店にお問い合わせください。"
            content = """
                <table class="tableType01 txt_c m_b5" summary="照会結果">
                <tr><th rowspan="2" class="w_120">お問い合わせ番号</th><th rowspan="2" class="w_80">商品種別</th><th rowspan="2" class="w_100">最新年月日</th><th rowspan="2" class="w_180">最新状態</th><th class="w_105">最新取扱局</th><th rowspan="2" class="w_105">県名等</th></tr>
                <tr><th class="w_105">郵便番号</th></tr>
                <tr><td class="w_120">\(shownNumber)</td><td colspan="5" class="txt_l"><font color="ff0000">\(message)</font></td></tr>
                </table>
                """
        }
        let html = """
            <!DOCTYPE html>
            <html lang="ja"><head><meta charset="UTF-8"><title>詳細検索結果｜日本郵便株式会社</title></head>
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
