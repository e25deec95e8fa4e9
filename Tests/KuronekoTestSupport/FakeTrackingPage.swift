import Foundation
import Kuroneko

/// Builds result pages in today's layout for any numbers, for tests that need pages the fixtures lack.
public enum FakeTrackingPage {
    /// One parcel block: its state title and history rows, in page order.
    public struct Block: Sendable {
        public struct Row: Sendable {
            public let label: String
            public let date: String
            public let place: String

            public init(_ label: String, _ date: String, _ place: String = "品川営業所") {
                self.label = label
                self.date = date
                self.place = place
            }
        }

        public let number: TrackingNumber
        public let state: String
        public let rows: [Row]

        public init(number: TrackingNumber, state: String, rows: [Row]) {
            self.number = number
            self.state = state
            self.rows = rows
        }
    }

    /// A complete page with one "配達中" block per number, in order.
    public static func html(for numbers: [TrackingNumber]) -> Data {
        html(
            blocks: numbers.map {
                Block(
                    number: $0, state: "配達中",
                    rows: [.init("荷物受付", "01月10日 18:02", "東京支店"), .init("配達中", "01月12日 08:51")])
            })
    }

    /// A complete page with the given blocks, in order.
    public static func html(blocks: [Block]) -> Data {
        let markup = blocks.enumerated().map { index, block in
            let rows = block.rows.map { row in
                "  <li><div class=\"item\">\(row.label)</div><div class=\"date\">\(row.date)</div>"
                    + "<div class=\"name\"><a href=\"#\">\(row.place)</a></div></li>"
            }
            return """
                <div class="tracking-anchor" id="AA\(String(format: "%03d", index))"></div>
                <div class="parts-tracking-invoice-block">
                 <h3 class="tracking-invoice-block-title">\(index + 1)件目：\(block.number.formatted)</h3>
                 <div class="tracking-invoice-block-state is-safe-blue">
                  <h4 class="tracking-invoice-block-state-title">\(block.state)</h4>
                  <div class="tracking-invoice-block-state-summary">ただいまお届けするためにお品物を持ち出しております。</div>
                 </div>
                 <div class="tracking-invoice-block-summary"><ul>
                  <li><div class="item">商品名：</div><div class="data">宅急便</div></li>
                  <li><div class="item">お届け予定日時：</div><div class="data">-</div></li>
                 </ul></div>
                 <div class="tracking-invoice-block-detail"><ol>
                \(rows.joined(separator: "\n"))
                 </ol></div>
                </div>
                """
        }
        let page = """
            <!DOCTYPE html>
            <html lang="ja"><head><meta charset="UTF-8"><title>荷物お問い合わせシステム｜ヤマト運輸</title></head>
            <body><div class="tracking-invoice-block-wrap">
            \(markup.joined(separator: "\n"))
            </div></body>
            </html>
            """
        return Data(page.utf8)
    }

    /// The numbers of a form body `number00=1&number01=…`, in field order.
    public static func numbers(inFormBody body: Data) -> [TrackingNumber] {
        String(decoding: body, as: UTF8.self).split(separator: "&").compactMap { field in
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0] != "number00", pair[0].hasPrefix("number") else { return nil }
            return try? TrackingNumber(parsing: String(pair[1]))
        }
    }
}
