import Foundation
import Kuroneko

/// The ways a simulated parcel's journey can go, each a fixed list of scans after hand-in.
public enum Scenario: String, Sendable, Hashable, CaseIterable {
    /// 荷物受付 → 発送済み → 輸送中 → 配達中 → 配達完了.
    case delivered
    /// Nobody home at the first attempt: 持戻（ご不在）, then delivered the next day.
    case absentThenDelivered = "absent_then_delivered"
    /// Delivered into a parcel locker: 配達完了（宅配ボックス）.
    case parcelLocker = "parcel_locker"
    /// ネコポス put into the mailbox: 投函完了.
    case nekoposMailbox = "nekopos_mailbox"
    /// Address trouble: 調査中, then 返品 and the way back to the sender, ending in 返品完了.
    case investigationThenReturned = "investigation_then_returned"
    /// Held up by weather on the way, 遅延中（悪天候）, then delivered a day later than planned.
    case delayedThenDelivered = "delayed_then_delivered"
    /// A クロネコゆうメール put in the mailbox: 投函予定 for two days before 投函完了.
    case mailScheduledThenDelivered = "mail_scheduled_then_delivered"

    enum Office {
        case origin, base, delivery
    }

    struct Step {
        let label: String
        /// The code of the history row itself.
        let eventCode: StatusCode
        /// The parcel's status once this is the latest row (after 返品 the rows belong to the way back).
        let statusCode: StatusCode
        let summary: String
        let isTerminal: Bool
        let office: Office
        /// Time after hand-in.
        let offset: TimeInterval
    }

    var product: String {
        switch self {
        case .nekoposMailbox: "ネコポス"
        case .mailScheduledThenDelivered: "クロネコゆうメール"
        default: "宅急便"
        }
    }

    /// When delivery is planned, after hand-in; `nil` where the page shows no date (ネコポス).
    var scheduledOffset: TimeInterval? {
        switch self {
        case .nekoposMailbox: nil
        case .delayedThenDelivered: 48 * 3600
        case .mailScheduledThenDelivered: Self.mailDropHours * 3600
        default: 24 * 3600
        }
    }

    /// When the redelivery asked for after 持戻 is due, after hand-in: the day of the second attempt.
    var redeliveryOffset: TimeInterval? {
        self == .absentThenDelivered ? 44 * 3600 : nil
    }

    /// The window asked for on a redelivery request.
    static let redeliveryWindow = "18:00-20:00"

    /// Whether the planned delivery comes with a time window (mail goes into the mailbox on a day).
    var hasDeliveryWindow: Bool { self != .mailScheduledThenDelivered }

    /// Hours after hand-in that a mail item is put into the mailbox: two days after 投函予定 first shows.
    static let mailScheduledHours = 12.0
    static let mailDropHours = mailScheduledHours + 48

    var steps: [Step] {
        let start = [
            step("荷物受付", .infoReceived, "お荷物をお預かりいたしました。", .origin, hours: 0),
            step("発送済み", .inTransit, "お荷物を発送いたしました。", .origin, hours: 0.1),
            step("輸送中", .inTransit, "お荷物をお届け先へ輸送しております。", .base, hours: 7),
        ]
        let outForDelivery = step("配達中", .outForDelivery, "ただいまお届けするためにお品物を持ち出しております。", .delivery, hours: 20)
        let delivered = "このお品物はお届けが済んでおります。"
        let mailboxScheduled = "お届け先のポストへ投函する予定です。"
        let mailboxDone = "お届け先のポストに投函いたしました。"
        switch self {
        case .delivered:
            return start + [outForDelivery, step("配達完了", .delivered, delivered, .delivery, hours: 22, terminal: true)]
        case .absentThenDelivered:
            return start + [
                outForDelivery,
                step("持戻（ご不在）", .attemptFailed, "お届けに伺いましたが、ご不在でしたので持ち帰りました。", .delivery, hours: 22),
                step("配達中", .outForDelivery, outForDelivery.summary, .delivery, hours: 44),
                step("配達完了", .delivered, delivered, .delivery, hours: 46, terminal: true),
            ]
        case .parcelLocker:
            return start + [
                outForDelivery, step("配達完了（宅配ボックス）", .delivered, delivered, .delivery, hours: 21, terminal: true),
            ]
        case .nekoposMailbox:
            return start + [
                step("投函予定", .inTransit, mailboxScheduled, .delivery, hours: 18),
                step("投函完了", .delivered, mailboxDone, .delivery, hours: 21, terminal: true),
            ]
        case .delayedThenDelivered:
            return start + [
                step("遅延中（悪天候）", .inTransit, "悪天候の影響により、お届けが遅れております。", .base, hours: 9),
                step("配達店到着", .inTransit, "お荷物が配達担当店に到着しました。", .delivery, hours: 40),
                step("配達中", .outForDelivery, outForDelivery.summary, .delivery, hours: 44),
                step("配達完了", .delivered, delivered, .delivery, hours: 46, terminal: true),
            ]
        case .mailScheduledThenDelivered:
            return start + [
                step("投函予定", .inTransit, mailboxScheduled, .delivery, hours: Self.mailScheduledHours),
                step("投函完了", .delivered, mailboxDone, .delivery, hours: Self.mailDropHours, terminal: true),
            ]
        case .investigationThenReturned:
            let returning = "ご依頼主様へ返品いたします。"
            return start + [
                step("調査中", .exception, "お届け先の確認のため、お荷物の配達を調査しております。", .delivery, hours: 20),
                step("返品", .returned, returning, .delivery, hours: 30),
                Step(
                    label: "輸送中", eventCode: .inTransit, statusCode: .returned, summary: returning, isTerminal: false,
                    office: .base, offset: 38 * 3600),
                step("返品完了", .returned, "ご依頼主様へお荷物をお返しいたしました。", .origin, hours: 60, terminal: true),
            ]
        }
    }

    private func step(
        _ label: String, _ code: StatusCode, _ summary: String, _ office: Office, hours: Double, terminal: Bool = false
    ) -> Step {
        Step(
            label: label, eventCode: code, statusCode: code, summary: summary, isTerminal: terminal, office: office,
            offset: hours * 3600)
    }
}
