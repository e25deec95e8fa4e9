import Foundation
import Kuroneko
import KuronekoHTTP

/// Seino's page as the simulator serves it, in the layout of the reconstructed fixtures (Shift_JIS declared,
/// every character beyond ASCII a character reference): `gnpquery.pgm` with up to ten numbers. Its parcels are
/// the 10-digit numbers starting with 7 (Sagawa has the other 10-digit ones).
struct SimulatedSeino: SimulatedCarrier {
    var carrier: Carrier { .seino }
    var ownsInWords: String { "10 digits starting with 7" }

    func owns(_ number: TrackingNumber) -> Bool {
        number.format == .tenDigits && number.digits.hasPrefix("7")
    }

    let journey: [SimulatedCarrierParcel.Leg] = [
        .init(label: "受 付", code: .infoReceived, hours: 0, place: "東京支店", region: ""),
        .init(label: "発 送", code: .inTransit, hours: 2, place: "東京支店", region: ""),
        .init(label: "中 継", code: .inTransit, hours: 9, place: "名古屋支店", region: ""),
        .init(label: "到 着", code: .inTransit, hours: 16, place: "大阪支店", region: ""),
        .init(label: "持 出", code: .outForDelivery, hours: 20, place: "大阪支店", region: ""),
        .init(label: "配 達", code: .delivered, hours: 24, place: "大阪支店", region: ""),
    ]

    static let fields = (1...9).map { "GNPNO\($0)" } + ["GNPNOA"]

    func addRoutes(to router: inout Router, context: SimulatedCarrierContext) {
        router.add("GET", "/cgi-bin/gnpquery.pgm") { request, _ in
            let numbers = Self.fields.compactMap { request.queryValue($0) }.filter { !$0.isEmpty }
            let now = context.clock.now
            return await context.answer(carrier, numbers: numbers.count, type: "text/html; charset=Shift_JIS") {
                Self.results(numbers, now: now, epoch: context.epoch)
            }
        }
    }

    func changedLayout(_ page: Data) -> Data {
        ChangedLayout.replacing(
            ChangedLayout.replacing(page, "summary=\"&#12362;", with: "summary=\"x&#12362;"), "</body>",
            with: ChangedLayout.referenced(ChangedLayout.sender) + "</body>")
    }

    static func results(_ texts: [String], now: Date, epoch: Date) -> Data {
        var rows = ""
        var details = ""
        for (offset, text) in texts.enumerated() {
            let digits = text.filter(\.isNumber)
            let number = try? TrackingNumber(parsing: text)
            let steps = SimulatedCarriers.steps(of: number, at: .seino, now: now, epoch: epoch) ?? []
            let sentence: String
            if digits.count < 10 {
                sentence = "お問合せ番号:桁数が不足しています"
            } else if digits.count > 12 {
                sentence = "お問合せ番号:桁数がオーバーしています"
            } else if steps.isEmpty {
                sentence = "入力されたお問合せ番号が見当りません"
            } else {
                sentence = steps.last?.code == .delivered ? "配達済みです" : "輸送中です"
            }
            let shipped = steps.first.map { "\($0.at.year)/\(two($0.at.month))/\(two($0.at.day))" } ?? ""
            rows += "<tr><td class=\"col1\">\(offset + 1)</td><td class=\"col2\">\(shipped)</td>"
                + "<td class=\"col3\">\(digits)</td><td class=\"col4\">\(sentence)</td></tr>\n"
            var stepRows = ""
            for step in steps {
                stepRows += "<tr><td class=\"col1\">\(step.label.replacingOccurrences(of: " ", with: "&nbsp;"))</td>"
                    + "<td class=\"col2\">\(step.place)</td><td class=\"col3\">\(two(step.at.day))日 \(step.at.time?.text ?? "")</td></tr>\n"
            }
            details += """
                <h3>お問合せ番号 \(digits)</h3>
                <table class="detail" summary="お届物詳細">
                <tr><th class="col1">状況</th><th class="col2">店所</th><th class="col3">日時</th></tr>
                \(stepRows)</table>

                """
        }
        let html = """
            <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
            <html lang="ja"><head>
            <meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">
            <title>お問合せ番号検索結果｜西濃運輸</title></head>
            <body><div id="alpha-inner"><form name="gempyoNoShokaiListForm" method="post" action="/kamotsu/GempyoNoShokai.do">
            <table class="list" summary="お届け状況確認 検索">
            <tr><th class="col1">No.</th><th class="col2">発送日</th><th class="col3">お問合せ番号</th><th class="col4">お届け状況</th></tr>
            \(rows)</table></form>
            \(details)</div></body></html>
            """
        return Data(SagawaSimulatedPage.referenced(html).utf8)
    }

    private static func two(_ value: Int) -> String { SagawaSimulatedPage.two(value) }
}
