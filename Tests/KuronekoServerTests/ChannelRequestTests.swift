import Foundation
import Kuroneko
@testable import KuronekoNotify
import Testing
import KuronekoCrypto

/// What each kind of channel is sent, in the shape its service documents, and the messages themselves.
@Suite("Channel messages")
struct ChannelRequestTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)
    private static let publicURL = URL(string: "https://parcels.example.jp")!

    private static func shipment(_ code: StatusCode, label: String, english: String) async throws -> Shipment {
        Shipment(
            trackingNumber: try TrackingNumber(parsing: "3277-5445-9830"),
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: english, summary: nil, note: nil, isTerminal: code == .delivered
            ),
            product: "宅急便",
            scheduledDelivery: ScheduledDelivery(
                raw: "12/03　14:00-16:00", date: JapanDateTime(year: 2026, month: 12, day: 3), windowStart: "14:00",
                windowEnd: "16:00"),
            events: [
                TrackingEvent(
                    label: label, labelEnglish: english, code: code,
                    at: JapanDateTime(year: 2026, month: 12, day: 2, time: .init(hour: 18, minute: 5)), dateText: nil,
                    place: "渋谷センター")
            ],
            deliveredAt: nil)
    }

    @Test("messages in the channel's language: what happened, the label and number, where and when, the link")
    func messages() async throws {
        let absent = try await Self.shipment(
            .attemptFailed, label: "持戻（ご不在）", english: "Hold at Yamato (Consignee Not Available)")
        let japanese = Announcement(
            kind: AnnouncementKind.of(.attemptFailed), shipment: absent, label: "靴", language: .japanese,
            publicURL: Self.publicURL)
        #expect(japanese.kind == .exception)
        #expect(japanese.title == "ご確認ください: 靴 (3277-5445-9830)")
        // The missed delivery says what to do: kept until the first attempt + 7 days, asked on the carrier's page
        // or, as Yamato's page names no office's telephone, from its service centre.
        #expect(
            japanese.body
                == "持戻（ご不在） · 渋谷センター · 12/02 18:05 12月9日頃まで保管されます。"
                + "再配達は運送会社のページか、ヤマト運輸サービスセンター（0570-200-000）へご依頼ください。")
        #expect(japanese.link?.absoluteString == "https://parcels.example.jp/parcel/327754459830")
        #expect(
            japanese.actionLink?.absoluteString
                == "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=327754459830")
        #expect(japanese.urgent)
        // The page's own 詳細確認／日時・場所変更 address wins over the fallback.
        var linked = absent
        linked.changeDeliveryURL = URL(string: "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=1&k=2")
        let withLink = Announcement(
            kind: .exception, shipment: linked, label: nil, language: .japanese, publicURL: nil)
        #expect(withLink.actionLink == linked.changeDeliveryURL)
        #expect(withLink.number == "327754459830")
        let english = Announcement(
            kind: .arrivingSoon, shipment: absent, label: nil, language: .english, publicURL: nil)
        #expect(english.title == "Arriving soon: 3277-5445-9830")
        #expect(english.body == "Expected 12/03 14:00–16:00.")
        #expect(english.link == nil)
        let moving = try await Self.shipment(.inTransit, label: "輸送中", english: "In Transit")
        #expect(!Announcement(kind: .changed, shipment: moving, label: nil, language: .english, publicURL: nil).urgent)
        #expect(AnnouncementKind.of(.delivered) == .delivered)
        #expect(AnnouncementKind.of(.outForDelivery) == .changed)
    }

    @Test("Web Push: aes128gcm to the subscription, VAPID for the push service's origin, TTL, Urgency, Topic")
    func webPush() async throws {
        let receiver = try P256KeyPair.generate()
        let auth = Data((0..<16).map { UInt8($0 * 3) })
        let endpoint = URL(string: "https://push.example.net/send/abc")!
        let vapid = VAPID(keys: try P256KeyPair.generate(), subject: "mailto:ops@example.jp")
        let announcement = await Announcement(
            kind: .delivered, shipment: try Self.shipment(.delivered, label: "配達完了", english: "Delivered"), label: nil,
            language: .japanese, publicURL: Self.publicURL)
        let subscription = WebPushChannel.Settings(
            url: endpoint.absoluteString, p256dh: Base64URL.encode(receiver.publicKey), auth: Base64URL.encode(auth))
        let request = try Self.request(WebPushChannel(), subscription, announcement, vapid: vapid)
        #expect(request.url == endpoint)
        #expect(request.headers["Content-Encoding"] == "aes128gcm")
        #expect(request.headers["TTL"] == "86400")
        #expect(request.headers["Urgency"] == "normal")
        #expect(request.headers["Topic"] == "parcel-327754459830")
        let authorization = try #require(request.headers["Authorization"])
        let token = try #require(authorization.firstMatch(of: /^vapid t=([^,]+), k=/)).1
        #expect(
            VAPID.verify(
                String(token), publicKey: vapid.keys.publicKey, audience: "https://push.example.net", now: Self.now)
                != nil)
        let payload = try WebPushEncryption.decrypt(request.body, receiver: receiver, auth: auth)
        let object = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: String])
        #expect(object["title"] == "お届け済み: 3277-5445-9830")
        #expect(object["url"] == "https://parcels.example.jp/parcel/327754459830")
        #expect(object["tag"] == "parcel-327754459830")
        let short = try Self.request(WebPushChannel(), subscription, announcement, vapid: vapid, shortened: true)
        #expect(short.body.count < request.body.count)
    }

    @Test("ntfy, Slack, Discord and a signed webhook, each in its documented shape")
    func others() async throws {
        let announcement = await Announcement(
            kind: .exception, shipment: try Self.shipment(.attemptFailed, label: "持戻（ご不在）", english: "Hold"),
            label: "<gift> & co", language: .japanese, publicURL: Self.publicURL)
        let ntfy = try Self.request(NtfyChannel(), URLChannelSettings(url: "https://ntfy.sh/kuroneko-test"), announcement)
        let title = try #require(ntfy.headers["Title"])
        let encoded = try #require(title.firstMatch(of: /^=\?UTF-8\?B\?([A-Za-z0-9+\/=]+)\?=$/)).1
        #expect(
            String(decoding: try #require(Data(base64Encoded: String(encoded))), as: UTF8.self) == announcement.title)
        #expect(ntfy.headers["Priority"] == "4")
        #expect(ntfy.headers["Tags"] == "warning,package")
        #expect(ntfy.headers["Click"] == announcement.actionLink?.absoluteString)
        #expect(String(decoding: ntfy.body, as: UTF8.self) == announcement.body)

        let slack = try Self.request(
            SlackChannel(), URLChannelSettings(url: "https://hooks.slack.com/services/T/B/X"), announcement)
        let slackObject = try #require(try JSONSerialization.jsonObject(with: slack.body) as? [String: Any])
        // The fallback text is escaped as the blocks are: a label cannot write <!everyone>.
        let escapedTitle = announcement.title.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        #expect((slackObject["text"] as? String)?.hasPrefix(escapedTitle) == true)
        #expect((slackObject["text"] as? String)?.contains("<") == false)
        let block = try #require((slackObject["blocks"] as? [[String: Any]])?.first)
        #expect(block["type"] as? String == "section")
        let text = try #require((block["text"] as? [String: Any])?["text"] as? String)
        #expect(text.contains("&lt;gift&gt; &amp; co"))

        let discord = try Self.request(
            DiscordChannel(), URLChannelSettings(url: "https://discord.com/api/webhooks/1/x"), announcement)
        let discordObject = try #require(try JSONSerialization.jsonObject(with: discord.body) as? [String: Any])
        #expect((discordObject["content"] as? String)?.count ?? 0 <= 2_000)
        let embed = try #require((discordObject["embeds"] as? [[String: Any]])?.first)
        #expect(embed["title"] as? String == announcement.title)
        #expect(embed["color"] as? Int == 0xDC2626)
        // Nobody is mentioned, whatever a label says.
        #expect((discordObject["allowed_mentions"] as? [String: Any])?["parse"] as? [String] == [])

        let webhook = try Self.request(
            WebhookChannel(), WebhookChannel.Settings(url: "https://shop.example/hook", secret: "whsec_x"), announcement)
        #expect(
            webhook.headers[WebhookPayload.signatureHeader]
                == WebhookPayload.signature(of: webhook.body, secret: "whsec_x", at: Self.now))
        #expect(ChannelText.encodedWord("ok\r\nInjected: 1") == "ok  Injected: 1")

        // LINE's text carries the carrier's page to change the delivery, as ntfy's Click does.
        let action = try #require(announcement.actionLink)
        let line = try Self.request(
            LineChannel(), LineChannel.Settings(accessToken: "t", to: ["U" + String(repeating: "0", count: 32)]),
            announcement)
        let lineObject = try #require(try JSONSerialization.jsonObject(with: line.body) as? [String: Any])
        let lineText = try #require((lineObject["messages"] as? [[String: Any]])?.first?["text"] as? String)
        #expect(lineText.contains(action.absoluteString), "\(lineText)")
        #expect(line.url.absoluteString == "https://api.line.me/v2/bot/message/push")
    }

    @Test("a channel stored before its kind had a settings type of its own reads as it did: e-mail's address from url")
    func storedBefore() throws {
        let legacy = Data(#"{"url": "me@example.jp", "urgent": ["delivered"]}"#.utf8)
        #expect(EmailChannel().shown(destination: legacy) == "me@example.jp")
        #expect(ChannelDestination.urgent(in: legacy) == ["delivered"])
        let prepared = try EmailChannel().prepare(["address": "me@example.jp"], urgent: nil)
        let stored = try #require(try JSONSerialization.jsonObject(with: prepared.destination) as? [String: Any])
        #expect(stored as? [String: String] == ["address": "me@example.jp"])
        let line = Data(#"{"access_token": "t", "to": ["U00000000000000000000000000000000"]}"#.utf8)
        #expect(LineChannel().shown(destination: line) == "U0000…")
        #expect(LineChannel().shown(destination: Data(#"{"access_token": "t"}"#.utf8)) == "broadcast")
        #expect(NtfyChannel().shown(destination: Data("not json".utf8)) == nil)
    }

    @Test("a missed delivery's next step in every channel: kept until when, the office's telephone, the redelivery page")
    func missedDelivery() async throws {
        var absent = try await Self.shipment(
            .attemptFailed, label: "持戻（ご不在）", english: "Hold at Yamato (Consignee Not Available)")
        absent.offices = [
            CarrierOffice(role: "集荷", name: "品川営業所", telephone: "0120-01-9625"),
            CarrierOffice(role: "配達", name: "渋谷センター", telephone: "080-0000-1111"),
        ]
        let announcement = Announcement(
            kind: .exception, shipment: absent, label: nil, language: .japanese, publicURL: Self.publicURL)
        let redelivery = "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=327754459830"
        let told = "12月9日頃まで保管されます。再配達は運送会社のページか、渋谷センター（080-0000-1111）へご依頼ください。"
        #expect(announcement.body.hasSuffix(told), "\(announcement.body)")
        let ntfy = try Self.request(NtfyChannel(), URLChannelSettings(url: "https://ntfy.sh/x"), announcement)
        #expect(String(decoding: ntfy.body, as: UTF8.self).contains(told))
        #expect(ntfy.headers["Click"] == redelivery)
        let line = try Self.request(
            LineChannel(), LineChannel.Settings(accessToken: "t", to: nil), announcement)
        let lineText = String(decoding: line.body, as: UTF8.self)
        #expect(lineText.contains(told) && lineText.contains(redelivery))
        let mail = MailMessage(
            announcement, from: try MailAddress(parsing: "kuroneko@example.jp"),
            to: try MailAddress(parsing: "me@example.jp"), date: Self.now)
        #expect(mail.text.contains(redelivery))
        // A cool parcel is kept three days; in English too.
        absent.product = "クール宅急便"
        let cool = Announcement(kind: .exception, shipment: absent, label: nil, language: .english, publicURL: nil)
        #expect(cool.body.contains("Kept until about 12/5 (cool parcel)."), "\(cool.body)")
        #expect(cool.body.contains("from 渋谷センター (080-0000-1111)"))
        // A redelivery that fails again does not extend the keeping: counted from the first attempt.
        absent.product = "宅急便"
        let second = JapanDateTime(year: 2026, month: 12, day: 4, time: .init(hour: 19, minute: 0))
        absent.events += [
            TrackingEvent(label: "配達中", labelEnglish: nil, code: .outForDelivery, at: second, dateText: nil, place: nil),
            TrackingEvent(label: "持戻（ご不在）", labelEnglish: nil, code: .attemptFailed, at: second, dateText: nil, place: nil),
        ]
        #expect(MissedDelivery(absent)?.keptUntil == JapanDateTime(year: 2026, month: 12, day: 9))
        // Once delivered, or not a missed delivery, nothing is said of keeping.
        absent.status.code = .inTransit
        #expect(MissedDelivery(absent) == nil)
    }

    @Test(
        "a missed delivery at each carrier: LINE, e-mail and ntfy carry the keeping date, the office's telephone and that carrier's redelivery page",
        arguments: [
            ("327754459830", Carrier.yamato, "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=327754459830"),
            ("800000000004", .sagawa, "https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo=800000000004"),
            ("900000000001", .japanPost, "https://trackings.post.japanpost.jp/delivery/deli/"),
        ])
    func missedDeliveryAtEachCarrier(digits: String, carrier: Carrier, redelivery: String) async throws {
        let attempt = JapanDateTime(year: 2026, month: 12, day: 2, time: .init(hour: 18, minute: 5))
        let absent = Shipment(
            trackingNumber: try TrackingNumber(parsing: digits, for: carrier), carrier: carrier,
            status: ShipmentStatus(
                code: .attemptFailed, label: "ご不在", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil,
            events: [TrackingEvent(label: "ご不在", labelEnglish: nil, code: .attemptFailed, at: attempt, dateText: nil, place: "新宿")],
            deliveredAt: nil)
        var withOffice = absent
        withOffice.offices = [CarrierOffice(role: "配達", name: "新宿営業所", telephone: "03-0000-2222")]
        let told = "12月9日頃まで保管されます。再配達は運送会社のページか、新宿営業所（03-0000-2222）へご依頼ください。"
        let announcement = Announcement(
            kind: .exception, shipment: withOffice, label: nil, language: .japanese, publicURL: Self.publicURL)
        #expect(announcement.body.hasSuffix(told), "\(announcement.body)")
        #expect(announcement.actionLink?.absoluteString == redelivery)
        let ntfy = try Self.request(NtfyChannel(), URLChannelSettings(url: "https://ntfy.sh/x"), announcement)
        #expect(String(decoding: ntfy.body, as: UTF8.self).contains(told))
        #expect(ntfy.headers["Click"] == redelivery)
        let line = String(
            decoding: try Self.request(LineChannel(), LineChannel.Settings(accessToken: "t", to: nil), announcement).body,
            as: UTF8.self)
        #expect(line.contains(told) && line.contains(redelivery), "\(line)")
        let mail = MailMessage(
            announcement, from: try MailAddress(parsing: "kuroneko@example.jp"),
            to: try MailAddress(parsing: "me@example.jp"), date: Self.now)
        #expect(mail.text.contains(redelivery))
        // Without an office on the page: the carrier's service centre where it has one, else its page alone.
        let plain = Announcement(kind: .exception, shipment: absent, label: nil, language: .japanese, publicURL: nil)
        let centre = carrier.definition.keeping.serviceCentre
        let ask = centre.map { "か、\($0.name)（\($0.telephone ?? "")）へ" } ?? "から"
        #expect(plain.body.hasSuffix("12月9日頃まで保管されます。再配達は運送会社のページ\(ask)ご依頼ください。"), "\(plain.body)")
        #expect((centre != nil) == (carrier != .sagawa))
    }

    @Test("each carrier's keeping rule: its days, a cool (チルド) parcel's, and its service centre as the office to call")
    func keepingRules() throws {
        let attempt = JapanDateTime(year: 2026, month: 12, day: 28, time: .init(hour: 11, minute: 0))
        for (digits, carrier, product, kept) in [
            ("327754459830", Carrier.yamato, "クール宅急便", JapanDateTime(year: 2026, month: 12, day: 31)),
            ("800000000004", .sagawa, "飛脚宅配便", JapanDateTime(year: 2027, month: 1, day: 4)),
            ("900000000001", .japanPost, "チルドゆうパック", JapanDateTime(year: 2026, month: 12, day: 31)),
            ("900000000001", .japanPost, "ゆうパック", JapanDateTime(year: 2027, month: 1, day: 4)),
        ] {
            let shipment = Shipment(
                trackingNumber: try TrackingNumber(parsing: digits, for: carrier), carrier: carrier,
                status: ShipmentStatus(
                    code: .attemptFailed, label: "ご不在", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
                product: product, scheduledDelivery: nil,
                events: [TrackingEvent(label: "ご不在", labelEnglish: nil, code: .attemptFailed, at: attempt, dateText: nil, place: nil)],
                deliveredAt: nil)
            let missed = try #require(MissedDelivery(shipment))
            #expect(missed.keptUntil == kept, "\(carrier) \(product)")
            #expect(missed.office == carrier.definition.keeping.serviceCentre)
        }
        #expect(Carrier.yamato.definition.keeping.serviceCentre?.telephone == "0570-200-000")
        #expect(Carrier.japanPost.definition.keeping.serviceCentre?.telephone == "0570-046-666")
    }

    @Test("a number no carrier knows yet, past the grace: its message names every carrier asked, never Yamato's words")
    func unknownCarrierNamesEveryCarrierAsked() async throws {
        var unknown = try await Self.shipment(.notFound, label: "伝票番号未登録", english: "Not registered")
        unknown.carriersAsked = [.yamato, .sagawa, .japanPost]
        let japanese = Announcement(kind: .exception, shipment: unknown, label: nil, language: .japanese, publicURL: nil)
        #expect(japanese.body.hasPrefix("運送会社を確認中（ヤマト運輸・佐川急便・日本郵便に未登録）"), "\(japanese.body)")
        #expect(!japanese.body.contains("伝票番号未登録"))
        let english = Announcement(kind: .exception, shipment: unknown, label: nil, language: .english, publicURL: nil)
        #expect(english.title.hasPrefix("Needs you"))
        #expect(english.body.hasPrefix("Carrier not known yet (not registered at Yamato Transport, Sagawa Express, Japan Post)"))
        // Followed at one carrier: its own words.
        unknown.carriersAsked = [.yamato]
        let one = Announcement(kind: .exception, shipment: unknown, label: nil, language: .japanese, publicURL: nil)
        #expect(one.body.hasPrefix("伝票番号未登録"))
    }

    @Test("late and the last day: what each message says, and the redelivery link the day before it goes back")
    func lateAndLastDay() async throws {
        var absent = try await Self.shipment(
            .attemptFailed, label: "持戻（ご不在）", english: "Hold at Yamato (Consignee Not Available)")
        absent.offices = [CarrierOffice(role: "配達", name: "渋谷センター", telephone: "080-0000-1111")]
        let reminder = Announcement(
            kind: .keptReminder, shipment: absent, label: "靴", language: .japanese, publicURL: Self.publicURL)
        #expect(reminder.title == "明日が保管期限: 靴 (3277-5445-9830)")
        #expect(
            reminder.body
                == "保管期限は12月9日頃で、過ぎると差出人に返送されます。再配達は運送会社のページか、渋谷センター（080-0000-1111）へご依頼ください。")
        #expect(reminder.actionLink?.absoluteString == "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=327754459830")
        #expect(reminder.urgent)
        let english = Announcement(kind: .keptReminder, shipment: absent, label: nil, language: .english, publicURL: nil)
        #expect(english.body.hasPrefix("It is kept until about 12/9; after that it goes back to the sender. Ask for"))

        var out = try await Self.shipment(.outForDelivery, label: "配達中", english: "Out for Delivery")
        out.scheduledDelivery = ScheduledDelivery(
            raw: "12/02 18:00-20:00", date: JapanDateTime(year: 2026, month: 12, day: 2), windowStart: "18:00",
            windowEnd: "20:00")
        let late = Announcement(kind: .overdue, shipment: out, label: nil, language: .japanese, publicURL: nil)
        #expect(late.title == "遅れています: 3277-5445-9830")
        #expect(late.body.hasPrefix("配達中：予定（"), "\(late.body)")
        #expect(late.body.hasSuffix("）を過ぎてもまだ届いていません。運送会社にお問い合わせください。"), "\(late.body)")
        #expect(Overdue.dueAt(out) == JapanDateTime(year: 2026, month: 12, day: 2, time: .init(hour: 20, minute: 0))?.instant)
        // A day without a window ends at midnight; a request the recipient made wins over the forecast.
        out.scheduledDelivery?.windowEnd = nil
        #expect(Overdue.dueAt(out) == JapanDateTime(year: 2026, month: 12, day: 3)?.instant)
        out.requestedDelivery = ScheduledDelivery(
            raw: "12/05 14:00-16:00", date: JapanDateTime(year: 2026, month: 12, day: 5), windowStart: "14:00",
            windowEnd: "16:00")
        #expect(Overdue.dueAt(out) == JapanDateTime(year: 2026, month: 12, day: 5, time: .init(hour: 16, minute: 0))?.instant)
    }

    @Test("a parcel going back says so in every message, whatever its latest row; delivered back is not delivered")
    func goingBack() async throws {
        var back = try await Self.shipment(.inTransit, label: "輸送中", english: "In Transit")
        back.events.insert(
            TrackingEvent(
                label: "返品", labelEnglish: "Returning to Sender", code: .returned,
                at: JapanDateTime(year: 2026, month: 12, day: 2, time: .init(hour: 9, minute: 0)), dateText: nil,
                place: nil), at: 0)
        let returning = Announcement(
            kind: AnnouncementKind.of(back), shipment: back, label: "靴", language: .japanese, publicURL: nil)
        #expect(returning.kind == .changed)
        #expect(returning.title == "返送中（輸送中）: 靴 (3277-5445-9830)")
        back.status = ShipmentStatus(
            code: .delivered, label: "配達完了", labelEnglish: "Delivered", summary: nil, note: nil, isTerminal: true)
        let returned = Announcement(
            kind: AnnouncementKind.of(back), shipment: back, label: nil, language: .english, publicURL: nil)
        #expect(returned.kind == .exception)
        #expect(returned.body.hasPrefix("Returned to the sender (Delivered)"), "\(returned.body)")
        #expect(!returned.title.hasPrefix("Delivered"))
    }

    /// The HTTP request `kind` makes of an announcement.
    private static func request<Kind: ChannelKind>(
        _ kind: Kind, _ settings: Kind.Settings, _ announcement: Announcement, vapid: VAPID? = nil,
        shortened: Bool = false
    ) throws -> ChannelRequest {
        let made = try kind.message(
            for: ChannelAnnouncement(announcement), settings: settings,
            context: ChannelContext(vapid: vapid, now: now, shortened: shortened))
        guard case .http(let request) = made else { throw ChannelMessageError("\(kind.name) made no HTTP request") }
        return request
    }
}
