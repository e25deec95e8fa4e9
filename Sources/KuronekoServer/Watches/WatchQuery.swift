import Foundation
import Kuroneko
import KuronekoStore

/// The families the list groups statuses into (the web app colours them): `pending` before the first
/// answer, then `accepted`, `transit`, `out` (out for delivery, or held for pickup), `delivered`, and
/// `problem` for everything that needs a person.
public enum WatchFamily: String, CaseIterable, Sendable {
    case pending, accepted, transit, out, delivered, problem

    public init(_ code: StatusCode?) {
        switch code {
        case nil: self = .pending
        case .infoReceived: self = .accepted
        case .inTransit: self = .transit
        case .outForDelivery, .availableForPickup: self = .out
        case .delivered: self = .delivered
        default: self = .problem
        }
    }
}

/// A day a forecast can fall on, in Japan: `today`, `tomorrow` or `YYYY-MM-DD`.
public enum ForecastDay: Sendable, Hashable {
    case today, tomorrow
    case date(year: Int, month: Int, day: Int)

    public init?(_ text: String) {
        switch text {
        case "today": self = .today
        case "tomorrow": self = .tomorrow
        default:
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard text.count == 10, parts.count == 3, (2000...2100).contains(parts[0]), (1...12).contains(parts[1]),
                (1...31).contains(parts[2])
            else { return nil }
            self = .date(year: parts[0], month: parts[1], day: parts[2])
        }
    }

    /// The day as `YYYY-MM-DD`, `now` saying which day today is.
    public func isoDate(now: Date) -> String {
        switch self {
        case .today: TrackingColumns.isoDate(JapanDateTime(now))
        case .tomorrow: TrackingColumns.isoDate(JapanDateTime(now.addingTimeInterval(86_400)))
        case .date(let year, let month, let day): String(format: "%04d-%02d-%02d", year, month, day)
        }
    }
}

/// What a list of watches is narrowed to: active or finished, status codes, families, a carrier, a forecast
/// day, and text found in the label or the number (`q`). Every part is checked, and named when refused.
public struct WatchQuery: Sendable {
    public var state = WatchFilter.all
    public var codes: Set<StatusCode>?
    public var families: Set<WatchFamily>?
    /// Codes that match besides ``families`` (the command line's `--status in_transit,problem`).
    public var extraCodes: Set<StatusCode> = []
    public var carrier: Carrier?
    public var forecast: ForecastDay?
    public var text: String?

    public init() {}

    /// Whether any part needs the watch's shipment (its status or forecast), not only its row.
    public var readsShipments: Bool { codes != nil || families != nil || forecast != nil }
    public var isEmpty: Bool { !readsShipments && carrier == nil && text == nil }

    /// From `?status=active|finished&code=a,b&family=a,b&carrier=c&forecast=today&q=text`.
    init(query value: (String) -> String?) throws(RouteProblem) {
        if let text = value("status") {
            guard let filter = WatchFilter(rawValue: text), filter != .all else {
                throw .bad("status \"\(text.prefix(20))\" is not allowed; use active or finished")
            }
            state = filter
        }
        if let text = value("code") {
            var codes = Set<StatusCode>()
            for name in text.split(separator: ",").prefix(32) {
                guard let code = StatusCode(rawValue: String(name)) else {
                    throw .bad(
                        "code \"\(name.prefix(40))\" is not a status code; expected e.g. in_transit, delivered, "
                            + "attempt_failed")
                }
                codes.insert(code)
            }
            guard !codes.isEmpty else { throw .bad("code is empty; give one or more status codes, comma-separated") }
            self.codes = codes
        }
        if let text = value("family") {
            var families = Set<WatchFamily>()
            for name in text.split(separator: ",").prefix(8) {
                guard let family = WatchFamily(rawValue: String(name)) else {
                    throw .bad(
                        "family \"\(name.prefix(40))\" is not one of "
                            + WatchFamily.allCases.map(\.rawValue).joined(separator: ", "))
                }
                families.insert(family)
            }
            guard !families.isEmpty else { throw .bad("family is empty; give one or more, comma-separated") }
            self.families = families
        }
        if let text = value("carrier") {
            guard let carrier = Carrier(rawValue: text) else {
                throw .bad("carrier \"\(text.prefix(20))\" is not yamato, sagawa or japanpost")
            }
            self.carrier = carrier
        }
        if let text = value("forecast") {
            guard let day = ForecastDay(text) else {
                throw .bad("forecast \"\(text.prefix(20))\" is not today, tomorrow or a date such as 2026-12-24")
            }
            forecast = day
        }
        if let text = value("q") {
            guard text.count <= 200, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw .bad("q is longer than 200 characters or holds a control character") }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            self.text = trimmed.isEmpty ? nil : trimmed
        }
    }

    /// What the query needs of a shipment: its status code and forecast day.
    public struct Facts: Decodable, Sendable {
        struct Status: Decodable { let code: StatusCode }
        struct Delivery: Decodable { let date: String? }
        let status: Status
        let scheduled_delivery: Delivery?

        public var code: StatusCode { status.code }
        /// `YYYY-MM-DD`, when the forecast has a date.
        public var forecastDate: String? { scheduled_delivery?.date.map { String($0.prefix(10)) } }

        public static func of(_ watch: Watch) -> Facts? {
            watch.latest.flatMap { try? JSONDecoder().decode(Facts.self, from: $0.json) }
        }
    }

    public func matches(_ watch: Watch, facts: Facts?, now: Date) -> Bool {
        switch state {
        case .all: break
        case .active: if !watch.active { return false }
        case .finished: if watch.active { return false }
        }
        if let carrier, watch.carrier != carrier { return false }
        if let text {
            let needle = text.lowercased()
            let digits = String(needle.filter { $0.isNumber || $0.isLetter })
            let inLabel = watch.label?.lowercased().contains(needle) ?? false
            let inNumber = !digits.isEmpty && watch.number.digits.lowercased().contains(digits)
            if !inLabel && !inNumber { return false }
        }
        if let codes, !(facts.map { codes.contains($0.code) } ?? false) { return false }
        if let families, !families.contains(WatchFamily(facts?.code)),
            !(facts.map { extraCodes.contains($0.code) } ?? false)
        {
            return false
        }
        if let forecast, facts?.forecastDate != forecast.isoDate(now: now) { return false }
        return true
    }
}

/// Counts over an owner's watches: by status code, by family, active and finished, forecast today and
/// tomorrow (`GET /v1/watches/summary`).
public struct WatchSummary: Sendable {
    public var total = 0
    public var active = 0
    public var byCode: [String: Int] = [:]
    public var byFamily: [String: Int] = [:]
    public var forecastToday = 0
    public var forecastTomorrow = 0

    public init(_ watches: [(Watch, WatchQuery.Facts?)], now: Date) {
        let today = ForecastDay.today.isoDate(now: now)
        let tomorrow = ForecastDay.tomorrow.isoDate(now: now)
        for family in WatchFamily.allCases { byFamily[family.rawValue] = 0 }
        for (watch, facts) in watches {
            total += 1
            if watch.active { active += 1 }
            byFamily[WatchFamily(facts?.code).rawValue, default: 0] += 1
            if let code = facts?.code { byCode[code.rawValue, default: 0] += 1 }
            if watch.active, let date = facts?.forecastDate {
                if date == today { forecastToday += 1 } else if date == tomorrow { forecastTomorrow += 1 }
            }
        }
    }

    public var json: [String: Any] {
        [
            "total": total, "active": active, "finished": total - active, "by_status": byCode, "by_family": byFamily,
            "forecast": ["today": forecastToday, "tomorrow": forecastTomorrow],
        ]
    }
}
