import Foundation
import Kuroneko

/// A parcel of the simulator: everything about it follows from its number and the simulator's clock.
///
/// The number picks a scenario, the offices, and when the parcel was handed in (between 36 hours before and
/// 12 hours after the simulator's epoch); the clock decides how far along its scenario it has come.
public struct SimulatedParcel: Sendable, Hashable {
    public let number: TrackingNumber
    public let scenario: Scenario
    /// When the parcel was handed in; before that Yamato does not know the number.
    public let registeredAt: Date
    private let seed: UInt64

    public init(number: TrackingNumber, epoch: Date) {
        self.number = number
        seed = UInt64(number.digits.prefix(11)) ?? 0
        scenario = Scenario.allCases[Int(seed % UInt64(Scenario.allCases.count))]
        let offsetMinutes = Int(seed / 7 % 2880) - 36 * 60
        registeredAt = epoch.addingTimeInterval(TimeInterval(offsetMinutes * 60))
    }

    /// What the tracking page shows for the parcel at `now`, and what it means.
    public func state(at now: Date) -> State {
        guard now >= registeredAt else { return .unregistered }
        let steps = scenario.steps.filter { registeredAt.addingTimeInterval($0.offset) <= now }
        let events = steps.map { step in
            Event(
                label: step.label, code: step.eventCode,
                at: JapanDateTime(registeredAt.addingTimeInterval(step.offset)),
                place: place(for: step.office))
        }
        guard let latest = steps.last else { return .unregistered }
        // Brought back with nobody home, the recipient asks for a redelivery: the page then shows the window
        // they asked for (お届け希望日時) and no forecast of its own.
        let redelivery = latest.statusCode == .attemptFailed ? scenario.redeliveryOffset : nil
        let scheduled: JapanDateTime? =
            [.delivered, .returned, .exception].contains(latest.statusCode) || redelivery != nil
            ? nil : scenario.scheduledOffset.map { JapanDateTime(registeredAt.addingTimeInterval($0)) }
        return .tracked(
            Tracked(
                statusLabel: latest.label, statusCode: latest.statusCode, summary: latest.summary,
                isTerminal: latest.isTerminal, product: scenario.product, scheduledDate: scheduled,
                scheduledWindow: scheduled != nil && scenario.hasDeliveryWindow ? "14:00-16:00" : nil,
                requestedDate: redelivery.map { JapanDateTime(registeredAt.addingTimeInterval($0)) },
                requestedWindow: redelivery == nil ? nil : Scenario.redeliveryWindow, events: events))
    }

    /// What the page says about a number.
    public enum State: Sendable, Hashable {
        /// Not handed in yet: 伝票番号未登録.
        case unregistered
        case tracked(Tracked)
    }

    /// The status and history of a parcel Yamato knows.
    public struct Tracked: Sendable, Hashable {
        public let statusLabel: String
        public let statusCode: StatusCode
        public let summary: String
        public let isTerminal: Bool
        public let product: String
        /// The day delivery is planned for, while it is still ahead.
        public let scheduledDate: JapanDateTime?
        /// The time window of the planned delivery, `HH:MM-HH:MM`, when the page gives one.
        public let scheduledWindow: String?
        /// The day the recipient asked for (a redelivery after 持戻), while it is still ahead.
        public let requestedDate: JapanDateTime?
        /// The window the recipient asked for, `HH:MM-HH:MM`.
        public let requestedWindow: String?
        public let events: [Event]
    }

    public struct Event: Sendable, Hashable {
        public let label: String
        public let code: StatusCode
        public let at: JapanDateTime
        public let place: String
    }

    private func place(for office: Scenario.Office) -> String {
        let names: [String] =
            switch office {
            case .origin: ["埼玉日高営業所（日高中央）", "ＺＯＺＯ支店", "大阪主管支店", "西埼玉営業所"]
            case .base: ["羽田クロノゲートベース", "関東ゲートウェイベース", "関西ゲートウェイベース", "厚木ゲートウェイベース"]
            case .delivery: ["ＥＣ笹塚センター", "茅ヶ崎赤羽根営業所（茅ヶ崎平和町）", "松原営業所（松原）", "墨田ＥＣデリバリーセンター"]
            }
        return names[Int(seed % UInt64(names.count))]
    }
}
