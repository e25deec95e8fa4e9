import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import Testing

/// A notice rendered with every field, in both languages and both character sets: each field's value in the
/// text, the ISO-2022-JP body decoding to the text the preview shows, the footer the law asks for, the stop
/// link signed; and hostile settings refused by name.
@Suite("Customer notice rendering")
struct CustomerNoticeRenderTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)
    static let from = try! MailAddress(parsing: "shop@example.jp")

    static var shipment: Shipment {
        let number = try! TrackingNumber(parsing: "312345678901")
        let attempt = JapanDateTime(now.addingTimeInterval(-3_600))
        return Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(
                code: .attemptFailed, label: "持戻（ご不在）", labelEnglish: "Returned to office (absent)", summary: nil,
                note: nil, isTerminal: false),
            product: "宅急便",
            scheduledDelivery: ScheduledDelivery(
                raw: "12月5日 14:00-16:00", date: JapanDateTime(now.addingTimeInterval(86_400)), windowStart: "14:00",
                windowEnd: "16:00"),
            events: [
                TrackingEvent(label: "配達中", labelEnglish: nil, code: .outForDelivery, at: attempt, dateText: nil, place: "ＥＣ笹塚センター"),
                TrackingEvent(
                    label: "持戻（ご不在）", labelEnglish: nil, code: .attemptFailed, at: attempt, dateText: nil,
                    place: "ＥＣ笹塚センター"),
            ], deliveredAt: nil)
    }

    static func settings(_ language: AnnouncementLanguage, _ charset: MessageCharset) -> NoticeSettings {
        var settings = NoticeSettings()
        settings.enabled = true
        settings.shop.name = "くろねこ雑貨店"
        settings.shop.address = "東京都渋谷区神南1-2-3"
        settings.shop.contact = "03-1234-5678"
        settings.language = language
        settings.charset = charset
        // Every field, one a line, so each line shows its value.
        settings.templates[language] = NoticeTemplate(
            subject: "{{shop}} {{title}} {{number}}",
            body: NoticeTemplate.Field.allCases.map { "\($0.rawValue)={{\($0.rawValue)}}" }.joined(separator: "\n"))
        return settings
    }

    static func render(_ language: AnnouncementLanguage, _ charset: MessageCharset, name: String = "山田 太郎")
        -> RenderedNotice?
    {
        let mail = CustomerNoticeMail(
            sender: Unsent(), from: from, publicURL: URL(string: "https://parcels.example.jp")!, stopKey: "k")
        let notice = CustomerNoticeRecord(
            id: 42, watchID: 7, owner: "local", number: "312345678901", milestone: .missedDelivery,
            address: "taro@example.jp", recipientName: name, reference: "A-00042",
            shipment: try! JSONEncoder().encode(shipment), state: "pending", attempts: 0, createdAt: now,
            finishedAt: nil, status: nil, error: nil)
        return mail.render(notice, settings: settings(language, charset))
    }

    struct Unsent: MailSender {
        func send(_ message: MailMessage) async -> DeliveryOutcome { DeliveryOutcome(status: nil, error: "no") }
    }

    @Test(arguments: [AnnouncementLanguage.japanese, .english], MessageCharset.allCases)
    func everyField(language: AnnouncementLanguage, charset: MessageCharset) throws {
        let rendered = try #require(Self.render(language, charset))
        #expect(rendered.charset == charset)
        let lines = rendered.text.split(separator: "\n").map(String.init)
        for field in NoticeTemplate.Field.allCases {
            let line = try #require(lines.first { $0.hasPrefix(field.rawValue + "=") }, "\(field) left out")
            #expect(line.count > field.rawValue.count + 1, "\(field) empty")
        }
        #expect(rendered.text.contains(language == .japanese ? "山田 太郎 様" : "Dear 山田 太郎,"))
        #expect(rendered.text.contains("3123-4567-8901") && rendered.text.contains("A-00042"))
        #expect(rendered.text.contains("https://toi.kuronekoyamato.co.jp/cgi-bin/tneko?type=1&no01=312345678901"))
        #expect(rendered.text.contains("https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=312345678901"))
        #expect(rendered.text.contains("https://parcels.example.jp/notices/stop?t=s1."))
        #expect(rendered.text.contains("東京都渋谷区神南1-2-3") && rendered.text.contains("03-1234-5678"))
        #expect(rendered.message.messageID == "<notice-42.7@example.jp>")
        let raw = String(decoding: rendered.message.rendered, as: UTF8.self)
        #expect(raw.contains("List-Unsubscribe: <https://parcels.example.jp/notices/stop?t=s1."))
        #expect(raw.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"))
        #expect(raw.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
        if charset == .iso2022JP {
            // 7 bits on the wire; the body decodes line by line to the text the preview shows.
            #expect(rendered.message.rendered.allSatisfy { $0 < 0x80 })
            #expect(raw.contains("=?ISO-2022-JP?B?"))
            let body = try #require(raw.components(separatedBy: "Content-Transfer-Encoding: 7bit\r\n\r\n").dropFirst().first)
            let plain = body.components(separatedBy: "\r\n--kuroneko-")[0]
            let decoded = plain.components(separatedBy: "\r\n").map { line in
                String(data: Data(line.utf8), encoding: .iso2022JP) ?? "?"
            }.joined(separator: "\n")
            #expect(
                JapaneseMailText.canonical(decoded).trimmingCharacters(in: .newlines)
                    == rendered.text.trimmingCharacters(in: .newlines))
        }
        // The same notice renders to the same bytes: a retry sends what the preview showed.
        #expect(Self.render(language, charset)?.message.rendered == rendered.message.rendered)
    }

    @Test func beyondISO2022JPFallsBackToUTF8() throws {
        let rendered = try #require(Self.render(.japanese, .iso2022JP, name: "髙橋 一郎"))
        #expect(rendered.charset == .utf8 && rendered.text.contains("髙橋 一郎 様"))
        #expect(String(decoding: rendered.message.rendered, as: UTF8.self).contains("charset=UTF-8"))
        // 〜 and ～ are one JIS character: written, and shown as a reader decodes it.
        #expect(JapaneseMailText.fits("14:00〜16:00 と 14:00～16:00"))
        #expect(JapaneseMailText.canonical("～") == "〜")
        #expect(!JapaneseMailText.fits("①") && !JapaneseMailText.fits("ｱ") && !JapaneseMailText.fits("😀"))
    }

    @Test func stopTokens() {
        let token = NoticeStop.token(owner: "local", address: "Taro@Example.jp", key: "secret")
        let read = NoticeStop.read(token, key: "secret")
        #expect(read?.owner == "local" && read?.addressHash == NoticeStop.addressHash("taro@example.jp"))
        #expect(NoticeStop.read(token, key: "another") == nil)
        let other = NoticeStop.token(owner: "someone-else", address: "taro@example.jp", key: "secret")
        let parts = token.split(separator: ".")
        let forged = ([parts[0], other.split(separator: ".")[1], parts[2], parts[3]]).joined(separator: ".")
        #expect(NoticeStop.read(forged, key: "secret") == nil)
        #expect(NoticeStop.read("s1." + String(repeating: "a", count: 600), key: "secret") == nil)
        #expect(NoticeStop.read("", key: "secret") == nil)
    }

    @Test(
        "hostile settings are refused by name",
        arguments: [
            ("[]", "body"), ("{\"colour\": 1}", "colour"), ("{\"enabled\": 1}", "enabled"),
            ("{\"shop\": {\"name\": \"a\\nb\"}}", "shop.name"),
            ("{\"shop\": {\"name\": \"\(String(repeating: "店", count: 101))\"}}", "shop.name"),
            ("{\"shop\": {\"reply_to\": \"no-at\"}}", "shop.reply_to"), ("{\"shop\": {\"phone\": \"1\"}}", "shop.phone"),
            ("{\"milestones\": [\"lost\"]}", "milestones"), ("{\"milestones\": \"shipped\"}", "milestones"),
            ("{\"language\": \"fr\"}", "language"), ("{\"charset\": \"shift_jis\"}", "charset"),
            ("{\"templates\": {\"ja\": {\"subject\": \"{{nope}}\"}}}", "templates.ja.subject"),
            ("{\"templates\": {\"en\": {\"body\": \"{{number\"}}}", "templates.en.body"),
            ("{\"templates\": {\"ja\": {\"body\": \"a\\u0000b\"}}}", "templates.ja.body"),
            ("{\"templates\": {\"de\": {}}}", "templates.de"),
        ])
    func hostileSettings(json: String, field: String) {
        do {
            _ = try NoticeSettings.parse(Data(json.utf8))
            Issue.record("\(json) was taken")
        } catch {
            #expect(error.field == field, "\(json): \(error)")
        }
    }

    @Test func settingsRoundTrip() throws {
        var settings = Self.settings(.english, .utf8)
        settings.milestones = [.delivered, .shipped]
        settings.shop.replyTo = try MailAddress(parsing: "help@example.jp")
        let read = try NoticeSettings.parse(settings.data)
        #expect(read == settings)
        #expect(NoticeSettings().missingForSending == ["shop.name", "shop.address", "shop.contact"])
    }

    @Test func sendingRate() {
        var rate = SendingRate(perSecond: 5)
        #expect(rate.available(at: .seconds(100)) == 5)
        rate.take(5)
        #expect(rate.available(at: .seconds(100)) == 0)
        #expect(rate.available(at: .milliseconds(100_400)) == 2)
        #expect(rate.available(at: .seconds(200)) == 5)
    }
}
