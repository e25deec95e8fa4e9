import Foundation
import Kuroneko

/// Renders the tracking result page, in today's layout, for up to ten numbers as the form posted them.
///
/// The markup follows the reconstructed pages under `Tests/Fixtures/yamato/current/`, quirks included: a
/// print-popup script in the head full of plain `</td>`, a ten-row summary list with `no-item` rows, an
/// `h3` title beside an `h4` state title, and a button whose text looks like a status.
public enum SimulatedPage {
    /// One answer on the page.
    public enum Entry: Sendable, Hashable {
        /// A number Yamato knows or does not know yet.
        case parcel(SimulatedParcel)
        /// Text that is not a valid number (wrong check digit or length): 伝票番号誤り.
        case invalid(String)
    }

    /// The whole page.
    /// - Parameter now: the simulator's time, which decides each parcel's progress.
    public static func html(for entries: [Entry], now: Date) -> String {
        let blocks = entries.prefix(10).enumerated().map { index, entry in block(entry, index: index, now: now) }
        let rows = (0..<10).map { index in
            summaryRow(index < entries.count ? entries[index] : nil, index: index, now: now)
        }
        return head + """
            <body id="tracking" class="page-tracking">
            <main class="main">
            <h1 class="page-title">荷物お問い合わせシステム</h1>
            <form name="main" method="post" action="/cgi-bin/tneko">
            <input type="hidden" name="number00" value="1">
            <div class="tracking-box-wrap">
             <h2 class="tracking-box-title">送り状番号検索</h2>
             <div class="tracking-box-list">
            \(rows.joined(separator: "\n"))
             </div>
             <div class="tracking-box-submit pc-only"><button type="submit" name="category" value="0" class="btn-submit"></button></div>
            </div>
            </form>
            <div class="tracking-invoice-block-wrap">
            \(blocks.joined(separator: "\n"))
            </div>
            </main>
            <footer class="footer"><p class="copyright">&copy; YAMATO TRANSPORT CO., LTD. All Rights Reserved.</p></footer>
            </body>
            </html>

            """
    }

    private static let head = """
        <!DOCTYPE html>
        <html lang="ja">
        <head>
        <meta charset="UTF-8">
        <title>荷物お問い合わせシステム｜ヤマト運輸</title>
        <script type="text/javascript">
        <!--
        var swd;
        function PRINT_0(){
         swd.writeln('<table border=1><tr><th>荷物状況</th><th>日 付</th></tr>');
         swd.writeln('<tr><td>荷物受付<br></td><td>01/10<br></td></tr>');
         swd.writeln('</table>');
        }
        -->
        </script>
        </head>

        """

    private static func display(_ digits: String) -> String {
        guard digits.count == 12 else { return digits }
        let characters = Array(digits)
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    private static func summaryRow(_ entry: Entry?, index: Int, now: Date) -> String {
        let field = "number" + (index + 1 < 10 ? "0" : "") + String(index + 1)
        guard let entry else {
            return """
                  <div class="tracking-box-area no-item"><div class="data number"><input type="text" name="\(field)" value=""></div><div class="data date pc-only"></div><div class="data state"></div></div>
                """
        }
        let (number, label, date) = summary(of: entry, now: now)
        return """
              <div class="tracking-box-area"><div class="data number"><input type="text" name="\(field)" value="\(number)"></div><div class="data date pc-only">\(date)</div><div class="data state"><a href="#AA\(String(format: "%03d", index))" class="js-tracking-detail"><div class="data arrow sp-only">▶</div> <div class="sp-only">\(date)　</div>\(label)</a></div></div>
            """
    }

    private static func summary(of entry: Entry, now: Date) -> (number: String, label: String, date: String) {
        switch entry {
        case .invalid(let text):
            return (display(text), "伝票番号誤り", "")
        case .parcel(let parcel):
            switch parcel.state(at: now) {
            case .unregistered:
                return (parcel.number.formatted, "伝票番号未登録", "")
            case .tracked(let tracked):
                return (parcel.number.formatted, tracked.statusLabel, tracked.events.last.map(monthDay) ?? "")
            }
        }
    }

    private static func block(_ entry: Entry, index: Int, now: Date) -> String {
        let anchor = "<div class=\"tracking-anchor\" id=\"AA\(String(format: "%03d", index))\"></div>"
        switch entry {
        case .invalid(let text):
            return anchor + """
                <div class="parts-tracking-invoice-block">
                 <h3 class="tracking-invoice-block-title">\(index + 1)件目：\(display(text))</h3>
                 <div class="tracking-invoice-block-state is-urgent-red">
                  <h4 class="tracking-invoice-block-state-title">伝票番号誤り</h4>
                  <div class="tracking-invoice-block-state-summary">お問い合わせいただいた伝票番号に誤りがあります。伝票番号をご確認ください。</div>
                 </div>
                </div>
                """
        case .parcel(let parcel):
            let title = "<h3 class=\"tracking-invoice-block-title\">\(index + 1)件目：\(parcel.number.formatted)</h3>"
            guard case .tracked(let tracked) = parcel.state(at: now) else {
                return anchor + """
                    <div class="parts-tracking-invoice-block">
                     \(title)
                     <div class="tracking-invoice-block-state is-urgent-red">
                      <h4 class="tracking-invoice-block-state-title">伝票番号未登録</h4>
                      <div class="tracking-invoice-block-state-summary">お問い合わせいただいた伝票番号は、今現在コンピュータに登録されておりません。</div>
                     </div>
                     <div class="tracking-invoice-block-state-note">最寄りのサービスセンターまでお問い合わせください。</div>
                    </div>
                    """
            }
            return anchor + trackedBlock(title: title, parcel: parcel, tracked: tracked)
        }
    }

    private static func trackedBlock(title: String, parcel: SimulatedParcel, tracked: SimulatedParcel.Tracked) -> String
    {
        let colour = tracked.statusCode == .delivered ? "is-complete-grey" : "is-safe-blue"
        let scheduled =
            tracked.scheduledDate.map { monthDaySlash($0) + (tracked.scheduledWindow.map { "　" + $0 } ?? "") } ?? "-"
        let requested = tracked.requestedDate.map { date in
            """

                           <li><div class="item">お届け希望日時：</div><div class="data">\(monthDaySlash(date))　\(tracked.requestedWindow ?? "")</div></li>
            """
        }
        let rows = tracked.events.map { event in
            """
               <li>
                <div class="item">\(event.label)</div>
                <div class="date">\(monthDayTime(event.at))</div>
                <div class="name"><a href="https://www.kuronekoyamato.co.jp/ytc/search/estimate/send_area.html" target="_blank">\(event.place)</a></div>
               </li>
            """
        }
        return """
            <div class="parts-tracking-invoice-block">
             \(title)
             <div class="tracking-invoice-block-message"></div>
             <div class="tracking-invoice-block-state \(colour)">
              <h4 class="tracking-invoice-block-state-title">\(tracked.statusLabel)</h4>
              <div class="tracking-invoice-block-state-summary">\(tracked.summary)</div>
             <div class="tracking-invoice-block-state-note">お問い合わせはサービスセンターまでお願いいたします。</div>
             </div>
             <div class="tracking-invoice-block-btns">
              <div class="btn-wrap"><a class="btn" href="javascript:void(0);">お届け完了通知を依頼</a></div>
             </div>
             <div class="tracking-invoice-block-summary">
              <ul>
               <li><div class="item">商品名：</div><div class="data">\(tracked.product)</div></li>
               <li><div class="item">お届け予定日時：</div><div class="data">\(scheduled)</div></li>\(requested ?? "")
              </ul>
             </div>
             <div class="tracking-invoice-block-detail">
              <ol>
            \(rows.joined(separator: "\n"))
              </ol>
             </div>
            </div>
            """
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func monthDay(_ event: SimulatedParcel.Event) -> String { monthDaySlash(event.at) }

    private static func monthDaySlash(_ time: JapanDateTime) -> String {
        twoDigits(time.month) + "/" + twoDigits(time.day)
    }

    private static func monthDayTime(_ time: JapanDateTime) -> String {
        let clock = time.time.map { " " + twoDigits($0.hour) + ":" + twoDigits($0.minute) } ?? ""
        return twoDigits(time.month) + "月" + twoDigits(time.day) + "日" + clock
    }
}
