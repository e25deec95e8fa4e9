import Foundation
import Kuroneko
import KuronekoStore

/// When the poller checks a watched number next: by its status, jittered so that watches added together
/// spread out, sharper around a scheduled delivery window, never again once the parcel is finished.
///
/// | status | interval |
/// |---|---|
/// | out for delivery | 10 min |
/// | attempt failed, in transit | 30 min |
/// | exception, unknown | 1 h |
/// | accepted (info received), available for pickup | 2 h |
/// | not registered yet | a quarter of the watch's age, 15 min to 6 h; given up after 30 days |
/// | delivered, returned, invalid | stop |
///
/// Within an hour before a scheduled delivery window, and during it, at most 10 min. Every interval is
/// divided by `speed` (for demos and tests) and moved by up to ±`jitter` of itself.
public struct PollSchedule: Sendable {
    public var speed: Double
    public var jitter: Double

    public static let unregisteredExpiry: TimeInterval = 30 * 86_400

    public init(speed: Double = 1, jitter: Double = 0.1) {
        self.speed = max(0.001, speed)
        self.jitter = min(max(0, jitter), 0.5)
    }

    /// The next check, or `nil` to stop.
    /// - Parameter random: a number in [0, 1) for the jitter.
    public func nextCheck(for shipment: Shipment, watchCreatedAt: Date, now: Date, random: Double) -> Date? {
        guard let base = interval(for: shipment, watchCreatedAt: watchCreatedAt, now: now) else { return nil }
        let jittered = base * (1 + jitter * (2 * random - 1))
        return now.addingTimeInterval(jittered / speed)
    }

    /// The interval before jitter and speed, in seconds; `nil` to stop.
    public func interval(for shipment: Shipment, watchCreatedAt: Date, now: Date) -> TimeInterval? {
        let minute: TimeInterval = 60
        let status = shipment.status
        if status.isTerminal || status.code == .invalidNumber || status.code == .delivered || status.code == .returned {
            return nil
        }
        var interval: TimeInterval
        switch status.code {
        case .outForDelivery: interval = 10 * minute
        case .attemptFailed, .inTransit: interval = 30 * minute
        case .exception, .unknown: interval = 60 * minute
        case .infoReceived, .availableForPickup: interval = 120 * minute
        case .notFound:
            let age = now.timeIntervalSince(watchCreatedAt)
            guard age < Self.unregisteredExpiry else { return nil }
            interval = min(max(age / 4, 15 * minute), 360 * minute)
        case .delivered, .returned, .invalidNumber: return nil
        }
        if let window = deliveryWindow(of: shipment), now >= window.start.addingTimeInterval(-60 * minute),
            now <= window.end
        {
            interval = min(interval, 10 * minute)
        }
        return interval
    }

    /// The scheduled delivery window as instants (a whole day when the page gives no hours).
    func deliveryWindow(of shipment: Shipment) -> (start: Date, end: Date)? {
        guard let scheduled = shipment.scheduledDelivery, let date = scheduled.date else { return nil }
        let day = JapanDateTime(year: date.year, month: date.month, day: date.day)?.instant ?? date.instant
        func hour(_ text: String?) -> TimeInterval? {
            guard let text, let value = Int(text.prefix { $0.isNumber }) else { return nil }
            return TimeInterval(value) * 3_600
        }
        let start = hour(scheduled.windowStart) ?? 0
        let end = hour(scheduled.windowEnd) ?? 86_400
        return (day.addingTimeInterval(start), day.addingTimeInterval(end))
    }
}

/// When a webhook delivery is tried again: 10 s, doubling, at most an hour apart, jittered; given up once
/// the change is 24 hours old.
public struct DeliveryRetryPolicy: Sendable {
    public var first: TimeInterval = 10
    public var longest: TimeInterval = 3_600
    public var giveUpAfter: TimeInterval = 86_400

    public init() {}

    /// The next attempt after `attempts` failed ones, or `nil` to give up.
    public func retry(after attempts: Int, createdAt: Date, now: Date, random: Double) -> Date? {
        guard now.timeIntervalSince(createdAt) < giveUpAfter else { return nil }
        let delay = min(longest, first * pow(2, Double(max(0, attempts - 1))))
        let next = now.addingTimeInterval(delay * (0.5 + 0.5 * random))
        return next.timeIntervalSince(createdAt) < giveUpAfter ? next : createdAt.addingTimeInterval(giveUpAfter)
    }
}
