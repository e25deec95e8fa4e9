import Foundation
import Kuroneko

/// A message's language.
public enum AnnouncementLanguage: String, Sendable, Hashable, Codable {
    case japanese = "ja", english = "en"
}

/// One message, written for a person in their language: short and plain, what happened, the parcel's label
/// and number, where and when, and a link to the parcel.
public struct Announcement: Sendable, Hashable {
    public let kind: AnnouncementKind
    public let title: String
    public let body: String
    /// The parcel in the web app (`--public-url`), when the server has one.
    public let link: URL?
    /// The carrier's page for changing the delivery, for exceptions.
    public let actionLink: URL?
    /// The words for ``actionLink``, in the message's language.
    public let actionTitle: String
    /// The parcel's number, as its page in the web app names it.
    public let number: String
    /// `high` for out for delivery, arriving soon and exceptions; `normal` otherwise.
    public let urgent: Bool
    /// One per parcel, so a newer message replaces an older one (Web Push `Topic`, the notification tag).
    public let topic: String

    /// The message for `shipment`'s status (or for its coming window, for `arrivingSoon`).
    public init(
        kind: AnnouncementKind, shipment: Shipment, label: String?, language: AnnouncementLanguage, publicURL: URL?
    ) {
        self.kind = kind
        let japanese = language == .japanese
        let formatted = shipment.trackingNumber.formatted
        let name = label.map { "\($0) (\(formatted))" } ?? formatted
        let latest = japanese ? shipment.status.label : (shipment.status.labelEnglish ?? shipment.status.label)
        // A parcel going back says so first, whatever its latest row (輸送中 on the way back is not on its way here).
        var status: String
        switch shipment.returnLeg {
        case .returning?: status = (japanese ? "返送中" : "Returning to the sender") + (japanese ? "（\(latest)）" : " (\(latest))")
        case .returned?: status = (japanese ? "返送済み" : "Returned to the sender") + (japanese ? "（\(latest)）" : " (\(latest))")
        case nil: status = latest
        }
        // A number no carrier knows yet (its carrier not named) names every carrier asked, never the last one's words.
        if shipment.status.code == .notFound, let asked = shipment.carriersAsked, asked.count > 1 {
            status =
                japanese
                ? "運送会社を確認中（\(asked.map(\.name).joined(separator: "・"))に未登録）"
                : "Carrier not known yet (not registered at \(asked.map(\.englishName).joined(separator: ", ")))"
        }
        let last = shipment.events.last
        let place = last?.place
        let when = last?.at.map(Self.shortTime)
        switch kind {
        case .arrivingSoon:
            let window = shipment.scheduledDelivery.map(Self.window) ?? ""
            title = japanese ? "まもなくお届け: \(name)" : "Arriving soon: \(name)"
            body = japanese ? "\(window) にお届け予定です。" : "Expected \(window)."
        case .stalled:
            title = japanese ? "動きがありません: \(name)" : "No news for a while: \(name)"
            let since = when.map { japanese ? "（最後の動き \($0)）" : " (last news \($0))" } ?? ""
            body = (japanese ? "\(status) のまま止まっています" : "Still \(status)") + since
                + (japanese ? "。運送会社にお問い合わせください。" : ". Ask the carrier.")
        case .overdue:
            title = japanese ? "遅れています: \(name)" : "Late: \(name)"
            let plan = (shipment.requestedDelivery ?? shipment.scheduledDelivery).map(Self.window)
            let past = plan.map { japanese ? "予定（\($0)）を過ぎてもまだ届いていません" : "not delivered by \($0) as planned" }
                ?? (japanese ? "いつもの日数を過ぎてもまだ届いていません" : "not delivered in the usual time")
            body = (japanese ? "\(status)：\(past)。" : "\(status): \(past).") + (japanese ? "運送会社にお問い合わせください。" : " Ask the carrier.")
        case .keptReminder:
            title = japanese ? "明日が保管期限: \(name)" : "Kept only until tomorrow: \(name)"
            body = MissedDelivery(shipment)?.reminderSentence(japanese: japanese) ?? Self.line(status, place: place, when: when)
        case .delivered:
            title = japanese ? "お届け済み: \(name)" : "Delivered: \(name)"
            body = Self.line(status, place: place, when: when)
        case .exception:
            title = japanese ? "ご確認ください: \(name)" : "Needs you: \(name)"
            // A missed delivery says what to do: until when it is kept, and where to ask for it again.
            let next = MissedDelivery(shipment).map { " " + $0.sentence(japanese: japanese) } ?? ""
            body = Self.line(status, place: place, when: when) + next
        case .changed, .pageChanged, .pageRestored, .mailboxFailing, .mailboxRestored, .morningSummary:
            title = "\(status): \(name)"
            body = Self.line(status, place: place, when: when)
        }
        let path = shipment.trackingNumber.digits
        self.number = path
        // Named where households look for it: 再配達 (the carriers' pages take redelivery and a new day alike).
        actionTitle = japanese ? "再配達・日時変更" : "Redelivery or another day"
        link = publicURL.map { $0.appendingPathComponent("parcel").appendingPathComponent(path) }
        actionLink =
            kind == .exception || kind == .keptReminder ? (shipment.changeDeliveryURL ?? Self.redelivery(for: shipment)) : nil
        urgent =
            kind == .exception || kind == .keptReminder || kind == .arrivingSoon || shipment.status.code == .outForDelivery
        topic = "parcel-" + path.lowercased()
    }

    /// The operator's message that a carrier's page is no longer understood, or is read again.
    public init(page notice: CarrierPageNotice, language: AnnouncementLanguage, publicURL: URL?) {
        let japanese = language == .japanese
        let carrier = japanese ? notice.carrier.name : notice.carrier.englishName
        kind = notice.restored ? .pageRestored : .pageChanged
        if notice.restored {
            title = japanese ? "\(carrier)のページを再び読めています" : "\(carrier)'s pages are read again"
            body =
                japanese
                ? "Kuroneko は\(carrier)の追跡ページを再び読めるようになりました。"
                : "Kuroneko reads \(carrier)'s tracking pages again."
        } else {
            title = japanese ? "\(carrier)のページが読めません" : "\(carrier)'s page is not understood"
            let why = notice.reason.map { " (\($0))" } ?? ""
            body =
                japanese
                ? "\(carrier)の追跡ページの形が変わったようです\(why)。荷物は最後に読めた状態のまま表示されます。"
                    + "`kuroneko pages list` で保存したページ（個人情報は伏せ字）を確かめ、報告してください。"
                : "\(carrier)'s tracking page seems to have changed\(why). Parcels keep their last answer. "
                    + "See `kuroneko pages list` for the kept pages (personal data masked) and report the change."
        }
        link = publicURL
        actionLink = nil
        actionTitle = ""
        number = ""
        urgent = !notice.restored
        topic = "page-" + notice.carrier.rawValue
    }

    private static func line(_ status: String, place: String?, when: String?) -> String {
        [status, place, when].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
    }

    /// `12/03 14:00`.
    static func shortTime(_ time: JapanDateTime) -> String {
        let day = String(format: "%02d/%02d", time.month, time.day)
        return time.time.map { day + " " + $0.text } ?? day
    }

    static func window(_ delivery: ScheduledDelivery) -> String {
        let day = delivery.date.map(shortTime) ?? delivery.raw
        guard let start = delivery.windowStart else { return day }
        return day + " " + start + "–" + (delivery.windowEnd ?? "")
    }

    /// Where the person changes the delivery when the page links nowhere: the carrier's redelivery page, as its
    /// definition states it (Yamato's 詳細確認／日時・場所変更 page, Japan Post's redelivery form, Sagawa's page of the
    /// parcel); `nil` for a carrier without one.
    static func redelivery(for shipment: Shipment) -> URL? {
        shipment.carrier.definition.redeliveryLink?.url(for: shipment.trackingNumber)
    }
}
