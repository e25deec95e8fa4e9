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
