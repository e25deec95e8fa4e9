import Foundation
import Kuroneko
import KuronekoHTTP

/// Fukuyama's pages as the simulator serves them, in the layout of the reconstructed fixtures (Shift_JIS
/// declared, every character beyond ASCII a character reference): the detail page of one number, the form
/// with its token, and the list the form's POST answers. Its parcels are the 11-digit numbers whose 書留
/// check digit fails (Japan Post's pass it).
struct SimulatedFukuyama: SimulatedCarrier {
    var carrier: Carrier { .fukuyama }
    var ownsInWords: String { "11 digits whose 書留 check digit is wrong" }

    func owns(_ number: TrackingNumber) -> Bool {
        number.format == .elevenDigits && !number.passesMod7
    }

    let journey: [SimulatedCarrierParcel.Leg] = [
        .init(label: "受付", code: .infoReceived, hours: 0, place: "北上支店", region: "0197-67-1292"),
        .init(label: "発送", code: .inTransit, hours: 2, place: "北上支店", region: "0197-67-1292"),
        .init(label: "到着", code: .inTransit, hours: 14, place: "青森支店", region: "017-738-2941"),
        .init(label: "持出", code: .outForDelivery, hours: 20, place: "青森支店", region: "017-738-2941"),
        .init(label: "配達完了", code: .delivered, hours: 23, place: "青森支店", region: "017-738-2941"),
    ]

    static let type = "text/html; charset=Shift_JIS"

    func addRoutes(to router: inout Router, context: SimulatedCarrierContext) {
        router.add("GET", "/situation/tracking_no_hunt/{number}") { _, parameters in
            let text = parameters["number"] ?? ""
            let now = context.clock.now
            return await context.answer(carrier, numbers: 1, type: Self.type) { Self.detail(text, now: now, epoch: context.epoch) }
        }
        router.add("GET", "/situation/tracking_no") { _, _ in
            await context.answer(carrier, numbers: 0, type: Self.type) { Self.form(token: Self.token(context.epoch)) }
        }
        router.add("POST", "/situation/tracking_no") { request, _ in
            let fields = FormEncoding.decode(String(decoding: request.body, as: UTF8.self))
            func field(_ name: String) -> String { fields.first { $0.name == name }?.value ?? "" }
            let numbers = (1...10).map { field("data[TrackingNo][tracking_no\($0)]") }.filter { !$0.isEmpty }
            // A POST without the form's token is answered with the form again, as a token-checking site does.
            guard field("data[TrackingNo][formValiNo]") == Self.token(context.epoch) else {
                return await context.answer(carrier, numbers: 0, type: Self.type) { Self.form(token: Self.token(context.epoch)) }
            }
            let now = context.clock.now
            return await context.answer(carrier, numbers: numbers.count, type: Self.type) {
                Self.list(numbers, now: now, epoch: context.epoch)
            }
        }
    }

    func changedLayout(_ page: Data) -> Data {
        ChangedLayout.replacing(
            ChangedLayout.replacing(page, "redbold", with: "status-current"), "</body>",
            with: ChangedLayout.referenced(ChangedLayout.sender) + "</body>")
    }

    static func token(_ epoch: Date) -> String { "sim\(Int(epoch.timeIntervalSince1970))" }

    static func shown(_ text: String) -> String {
        let digits = text.filter(\.isNumber)
        guard digits.count == 11 else { return digits }
        let characters = Array(digits)
        return String(characters[0..<3]) + "-" + String(characters[3..<7]) + "-" + String(characters[7..<11])
    }

    static func detail(_ text: String, now: Date, epoch: Date) -> Data {
        let number = try? TrackingNumber(parsing: text)
        let steps = SimulatedCarriers.steps(of: number, at: .fukuyama, now: now, epoch: epoch) ?? []
        guard let last = steps.last else {
            return page(
                title: "お荷物配達状況詳細", content: """
                    <h2>お荷物配達状況詳細</h2>
                    <table class="tracking_info"><tr><th>お問い合わせ番号</th><td>\(shown(text))</td></tr></table>
                    <p class="label">現在の配達状況</p><p><strong class="redbold">該当データはありません。</strong></p>
                    """)
        }
        let planned = steps.first.map { JapanDateTime($0.at.instant.addingTimeInterval(86_400)) }
        let plannedText = last.code == .delivered ? dateTime(last.at) : planned.map { date($0) + " 10:00" } ?? ""
        var rows = ""
        for step in steps {
            rows += "<tr><td>\(step.label)</td><td>\(date(step.at))</td><td>\(step.at.time?.text ?? "")</td>"
                + "<td>\(step.place)</td><td>\(step.region)</td></tr>\n"
        }
        return page(
            title: "お荷物配達状況詳細", content: """
                <h2>お荷物配達状況詳細</h2>
                <table class="tracking_info">
                <tr><th>お問い合わせ番号</th><td>\(shown(text))</td></tr>
                <tr><th>個数</th><td>1 個</td></tr>
                <tr><th>重量</th><td>12 kg</td></tr>
                <tr><th>お届け予定日/配達完了日</th><td>\(plannedText)</td></tr>
                </table>
                <p class="label">現在の配達状況</p><p><strong class="redbold">\(last.label)です</strong></p>
                <table class="table01 history">
                <tr><th>状況</th><th>日付</th><th>時刻</th><th>担当店</th><th>支店電話番号</th></tr>
                \(rows)</table>
                <table class="table01 branch">
                <tr><th>支店コード</th><th>支店名</th><th>住所</th><th>支店電話番号</th></tr>
                <tr><td>0133</td><td>北上支店</td><td>岩手県北上市</td><td>0197-67-1292</td></tr>
                <tr><td>0121</td><td>青森支店</td><td>青森県青森市</td><td>017-738-2941</td></tr>
                </table>
                """)
    }

    static func form(token: String) -> Data {
        let inputs = (1...10).map {
            "<input type=\"text\" name=\"data[TrackingNo][tracking_no\($0)]\" id=\"tracking_no\($0)\" class=\"w120 ime_mode_disabled\">"
        }
        return page(
            title: "お荷物配達状況照会・お問い合わせ番号から照会", content: """
                <form id="tracking_noForm" method="post" action="tracking_no" accept-charset="sjis">
                <input type="hidden" name="_method" value="POST">
                <input type="hidden" name="data[TrackingNo][formValiNo]" value="\(token)">
                \(inputs.joined(separator: "\n"))
                </form>
                """)
    }

    static func list(_ texts: [String], now: Date, epoch: Date) -> Data {
        var rows = ""
        for text in texts {
            let number = try? TrackingNumber(parsing: text)
            let steps = SimulatedCarriers.steps(of: number, at: .fukuyama, now: now, epoch: epoch) ?? []
            if let last = steps.last, let first = steps.first {
                rows += "<tr class=\"address_content\"><td>\(shown(text))</td><td>\(date(first.at))</td>"
                    + "<td>\(dateTime(last.at))</td><td>\(last.label)</td><td></td></tr>\n"
            } else {
                rows += "<tr class=\"address_content\"><td>\(shown(text))</td><td></td><td></td>"
                    + "<td>該当データはありません。</td><td></td></tr>\n"
            }
        }
        return page(
            title: "お荷物配達状況照会・お問い合わせ番号から照会 結果", content: """
                <table class="table01">
                <tr><th>お問い合わせ番号</th><th>発送日</th><th>更新日時</th><th>配達状況</th><th>備考</th></tr>
                \(rows)</table>
                """)
    }

    private static func date(_ time: JapanDateTime) -> String {
        "\(time.year)/\(SagawaSimulatedPage.two(time.month))/\(SagawaSimulatedPage.two(time.day))"
    }

    private static func dateTime(_ time: JapanDateTime) -> String {
        date(time) + (time.time.map { " " + $0.text } ?? "")
    }

    private static func page(title: String, content: String) -> Data {
        let html = """
            <!DOCTYPE html>
            <html lang="ja"><head>
            <meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">
            <title>\(title)｜福山通運</title></head>
            <body><div id="contents">
            \(content)
            </div></body></html>
            """
        return Data(SagawaSimulatedPage.referenced(html).utf8)
    }
}
