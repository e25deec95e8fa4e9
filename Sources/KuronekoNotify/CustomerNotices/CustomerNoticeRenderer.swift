import Foundation
import Kuroneko

/// One notice for a parcel's recipient, rendered once for the preview and for sending alike: the same input
/// gives the same bytes, so a retry sends the message the preview showed (its Message-ID and Date included).
public struct CustomerNoticeDraft: Sendable {
    public var milestone: CustomerMilestone
    public var shipment: Shipment
    public var recipientName: String?
    public var reference: String?
    public var address: MailAddress
    /// Where the recipient stops the shop's notices (no account needed).
    public var stopLink: URL
    /// `<…>`: stable for one notice, whatever the attempt.
    public var messageID: String
    /// When the notice was queued (the Date header).
    public var date: Date

    public init(
        milestone: CustomerMilestone, shipment: Shipment, recipientName: String?, reference: String?,
        address: MailAddress, stopLink: URL, messageID: String, date: Date
    ) {
        self.milestone = milestone
        self.shipment = shipment
        self.recipientName = recipientName
        self.reference = reference
        self.address = address
        self.stopLink = stopLink
        self.messageID = messageID
        self.date = date
    }
}

/// A rendered notice: what the preview shows and what is sent.
public struct RenderedNotice: Sendable, Hashable {
    public let subject: String
    public let text: String
    public let html: String
    /// The character set used: the shop's, or UTF-8 when the text holds what ISO-2022-JP cannot write.
    public let charset: MessageCharset
    public let message: MailMessage
}

public enum CustomerNoticeRenderer {
    /// Renders `draft` under `settings`, sent from `from` (the server's SMTP sender; the shop's name shown).
    public static func render(_ draft: CustomerNoticeDraft, settings: NoticeSettings, from: MailAddress)
        -> RenderedNotice
    {
        let language = settings.language
        let template = settings.template(language)
        let values = fields(draft, settings: settings, language: language)
        let subject = NoticeTemplate.fill(template.subject, values, dropEmptyLines: false)
            .replacingOccurrences(of: "\n", with: " ")
        let body = NoticeTemplate.fill(template.body, values, dropEmptyLines: true)
        var text = body + "\n\n" + footer(settings, stopLink: draft.stopLink, language: language) + "\n"
        var charset = settings.charset
        var shownSubject = subject
        var shopName = settings.shop.name
        if charset == .iso2022JP {
            if JapaneseMailText.fits(text), JapaneseMailText.fits(subject), JapaneseMailText.fits(shopName) {
                text = JapaneseMailText.canonical(text)
                shownSubject = JapaneseMailText.canonical(subject)
                shopName = JapaneseMailText.canonical(shopName)
            } else {
                charset = .utf8
            }
        }
        let html = html(text, title: shownSubject, language: language)
        var message = MailMessage(
            from: from, to: draft.address, subject: shownSubject, text: text, html: html, date: draft.date,
            messageID: draft.messageID)
        message.fromName = shopName.isEmpty ? nil : shopName
        message.charset = charset
        if let reply = settings.shop.replyTo { message.extraHeaders.append(MailHeaderField(name: "Reply-To", value: reply.text)) }
        // One click stops them in mail programs that offer it (RFC 8058).
        message.extraHeaders.append(MailHeaderField(name: "List-Unsubscribe", value: "<\(draft.stopLink.absoluteString)>"))
        message.extraHeaders.append(MailHeaderField(name: "List-Unsubscribe-Post", value: "List-Unsubscribe=One-Click"))
        return RenderedNotice(subject: shownSubject, text: text, html: html, charset: charset, message: message)
    }

    static func fields(_ draft: CustomerNoticeDraft, settings: NoticeSettings, language: AnnouncementLanguage)
        -> [NoticeTemplate.Field: String]
    {
        let japanese = language == .japanese
        let shipment = draft.shipment
        let carrier = japanese ? shipment.carrier.name : shipment.carrier.englishName
        let name = draft.recipientName?.trimmingCharacters(in: .whitespaces) ?? ""
        var values: [NoticeTemplate.Field: String] = [
            .recipient: japanese ? (name.isEmpty ? "お客様" : "\(name) 様") : (name.isEmpty ? "Dear customer," : "Dear \(name),"),
            .shop: settings.shop.name, .reference: draft.reference ?? "", .carrier: carrier,
            .number: shipment.trackingNumber.formatted, .title: title(draft.milestone, shipment, japanese: japanese),
            .status: status(draft.milestone, shipment, carrier: carrier, japanese: japanese),
            .link: shipment.carrier.definition.link(forMail: shipment.trackingNumber)?.absoluteString ?? "",
            .contact: settings.shop.contact, .address: settings.shop.address,
        ]
        if [.shipped, .outForDelivery, .missedDelivery].contains(draft.milestone),
            let planned = shipment.requestedDelivery ?? shipment.scheduledDelivery
        {
            values[.planned] = plan(planned, japanese: japanese)
        }
        if draft.milestone == .missedDelivery, let missed = MissedDelivery(shipment) {
            let link = shipment.changeDeliveryURL ?? Announcement.redelivery(for: shipment)
            values[.nextStep] = missed.sentence(japanese: japanese) + (link.map { "\n" + $0.absoluteString } ?? "")
        }
        return values
    }

    static func title(_ milestone: CustomerMilestone, _ shipment: Shipment, japanese: Bool) -> String {
        switch milestone {
        case .shipped: japanese ? "商品を発送しました" : "Your order has shipped"
        case .outForDelivery: japanese ? "本日お届けにうかがいます" : "Out for delivery today"
        case .delivered: japanese ? "お届けが完了しました" : "Delivered"
        case .missedDelivery: japanese ? "ご不在のためお荷物を持ち帰りました" : "We missed you: the parcel is kept"
        case .problem:
            shipment.returnLeg != nil
                ? (japanese ? "お荷物が当店へ戻ります" : "Your parcel is coming back to us")
                : (japanese ? "お荷物についてのお知らせ" : "News about your parcel")
        }
    }

    static func status(_ milestone: CustomerMilestone, _ shipment: Shipment, carrier: String, japanese: Bool) -> String {
        let sentence: String
        switch milestone {
        case .shipped:
            sentence = japanese ? "ご注文の商品を\(carrier)にて発送いたしました。" : "Your order is on its way with \(carrier)."
        case .outForDelivery:
            sentence = japanese ? "お荷物は本日お届けにうかがいます。" : "Your parcel is out for delivery today."
        case .delivered:
            sentence = japanese ? "お荷物のお届けが完了しました。" : "Your parcel has been delivered."
        case .missedDelivery:
            sentence = japanese ? "ご不在のため、お荷物を持ち帰りました。" : "Nobody was in, so the parcel was taken back."
        case .problem:
            sentence =
                shipment.returnLeg != nil
                ? (japanese ? "お荷物は当店へ返送されています。お手数ですが、当店までご連絡ください。"
                    : "Your parcel is being returned to us. Please contact us.")
                : (japanese ? "お荷物の配送に問題が生じています。" : "There is a problem with your parcel's delivery.")
        }
        let label = japanese ? shipment.status.label : (shipment.status.labelEnglish ?? shipment.status.label)
        let last = shipment.events.last
        let latest = [label, last?.place, last?.at.map(Announcement.shortTime)].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return sentence + (japanese ? "（最新の状況：\(latest)）" : " (Latest: \(latest))")
    }

    static func plan(_ delivery: ScheduledDelivery, japanese: Bool) -> String {
        var day = delivery.raw
        if let date = delivery.date { day = japanese ? "\(date.month)月\(date.day)日" : "\(date.month)/\(date.day)" }
        guard let start = delivery.windowStart else { return day }
        return day + " " + start + (japanese ? "〜" : "-") + (delivery.windowEnd ?? "")
    }

    static func footer(_ settings: NoticeSettings, stopLink: URL, language: AnnouncementLanguage) -> String {
        let shop = settings.shop
        let lines: [String]
        switch language {
        case .japanese:
            lines = [
                "――――――――――――――――――――", "送信者：\(shop.name)", "所在地：\(shop.address)",
                "お問い合わせ：\(shop.contact)",
                "このメールは、ご注文の商品の配送状況をお知らせするため送信しています。",
                "今後のお知らせが不要な場合は、こちらから停止できます（ログインは不要です）。", stopLink.absoluteString,
            ]
        case .english:
            lines = [
                "--------------------", "From: \(shop.name)", "Address: \(shop.address)", "Contact: \(shop.contact)",
                "This e-mail tells you where your order is.",
                "To stop these notices (no account needed):", stopLink.absoluteString,
            ]
        }
        return lines.joined(separator: "\n")
    }

    /// The text as HTML: each line escaped, links made links, blank lines between paragraphs.
    static func html(_ text: String, title: String, language: AnnouncementLanguage) -> String {
        let paragraphs = text.components(separatedBy: "\n\n").map { paragraph in
            "<p>" + paragraph.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let value = String(line)
                if value.hasPrefix("https://") || value.hasPrefix("http://"), !value.contains(" ") {
                    let escaped = MailMessage.escaped(value)
                    return "<a href=\"\(escaped)\">\(escaped)</a>"
                }
                return MailMessage.escaped(value)
            }.joined(separator: "<br>\n") + "</p>"
        }
        return "<!doctype html>\n<html lang=\"\(language.rawValue)\"><head><title>\(MailMessage.escaped(title))</title></head><body>\n"
            + paragraphs.joined(separator: "\n") + "\n</body></html>\n"
    }
}
