import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore

/// The recipient's stop link: a page in Japanese and English, no script, no account.
extension NoticeRoutes {
    func stopPage(_ request: HTTPRequest) -> HTTPResponse {
        guard let token = request.queryValue("t"), let mail, NoticeStop.read(token, key: mail.stopKey) != nil else {
            return Self.page(
                status: 404, "このリンクは使えません / This link does not work",
                "配信停止のリンクが正しくありません。メールに書かれたリンクをそのまま開いてください。"
                    + " / The stop link is not valid: open the link as it is written in the e-mail.")
        }
        let escaped = MailMessage.escapedForPage(token)
        return Self.page(
            status: 200, "お知らせの配信停止 / Stop these notices",
            "このショップからの配送のお知らせを今後受け取らない場合は、下のボタンを押してください。"
                + " / Press the button to receive no more delivery notices from this shop.",
            form: "<form method=\"post\" action=\"stop\"><input type=\"hidden\" name=\"t\" value=\"\(escaped)\">"
                + "<button type=\"submit\">配信を停止する / Stop</button></form>")
    }

    func stop(_ request: HTTPRequest) async -> HTTPResponse {
        let fields = FormEncoding.decode(String(decoding: request.body.prefix(4_096), as: UTF8.self))
        let token = fields.first { $0.name == "t" }?.value ?? request.queryValue("t")
        guard let token, let mail, let (owner, hash) = NoticeStop.read(token, key: mail.stopKey) else {
            return Self.page(
                status: 404, "このリンクは使えません / This link does not work",
                "配信停止のリンクが正しくありません。 / The stop link is not valid.")
        }
        do {
            try await watches.store.stopCustomerNotices(owner: owner, addressHash: hash, reason: "stopped", at: watches.clock.now)
        } catch {
            watches.failures.report(.customerNotices, error, context: ["doing": "stop link"])
            var response = Self.page(
                status: 503, "いまは停止できません / Not now",
                "時間をおいて、もう一度お試しください。 / Please try again in a few minutes.")
            response.headers.append(("Retry-After", "60"))
            return response
        }
        return Self.page(
            status: 200, "配信を停止しました / Stopped",
            "このショップからの配送のお知らせは、今後お送りしません。 / This shop sends you no more delivery notices.")
    }

    static func page(status: Int, _ title: String, _ text: String, form: String = "") -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="ja"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta name="robots" content="noindex"><title>\(MailMessage.escapedForPage(title))</title></head>
            <body><h1>\(MailMessage.escapedForPage(title))</h1><p>\(MailMessage.escapedForPage(text))</p>\(form)</body></html>

            """
        var response = HTTPResponse.content(Data(html.utf8), type: "text/html; charset=utf-8", status: status)
        response.headers.append(("Cache-Control", "no-store"))
        response.headers.append(("Referrer-Policy", "no-referrer"))
        return response
    }
}
