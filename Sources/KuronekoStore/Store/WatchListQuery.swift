import Foundation
import Kuroneko

/// The families the list groups statuses into (the web app colours them): `pending` before the first
/// answer, then `accepted`, `transit`, `out` (out for delivery, or held for pickup), `delivered`, and
/// `problem` for everything that needs a person. The one definition: the store keeps each watch's family in
/// a column of its own, the API narrows and counts by it, the command line and the web app ask for it.
public enum WatchFamily: String, CaseIterable, Sendable {
    case pending, accepted, transit, out, delivered, problem
    /// A number the carrier does not know yet (伝票番号未登録, 該当なし), added less than the grace ago
    /// (``WatchLimits/unregisteredGrace``): normal the day after a label is printed, not yet a problem.
    case waiting
    /// On its way back to the sender (``ReturnLeg/returning``), whatever its latest row says.
    case returning
    /// Back with the sender (``ReturnLeg/returned``), a delivery back included.
    case returned

    /// A shipment's family: its return leg when it goes back, a problem when it is held after a missed
    /// delivery (Sagawa's ⇒保管中 after ↓配達中: the recipient must act), else its status's.
    public init(_ shipment: Shipment?) {
        switch shipment?.returnLeg {
        case .returning?: self = .returning
        case .returned?: self = .returned
        case nil:
            if let shipment, shipment.status.code == .availableForPickup, MissedDelivery(shipment) != nil {
                self = .problem
            } else {
                self.init(shipment?.status.code)
            }
        }
    }

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
            guard text.utf8.count == 10, parts.count == 3, (2000...2100).contains(parts[0]),
                (1...12).contains(parts[1]), (1...31).contains(parts[2])
            else { return nil }
            self = .date(year: parts[0], month: parts[1], day: parts[2])
        }
    }

    /// The day as `YYYY-MM-DD`, `now` saying which day today is (in Japan).
    public func isoDate(now: Date) -> String {
        switch self {
        case .today: Self.isoDate(JapanDateTime(now))
        case .tomorrow: Self.isoDate(JapanDateTime(now.addingTimeInterval(86_400)))
        case .date(let year, let month, let day): String(format: "%04d-%02d-%02d", year, month, day)
        }
    }

    static func isoDate(_ date: JapanDateTime) -> String {
        String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }
}

/// What a list of watches is narrowed to: active or finished, status codes, families, a carrier, a forecast
/// day, and text found in the label or the number (``text``, matched by ``SearchText``). The store turns it
/// into SQL over indexed columns (``SQLWatchStore/watches(owner:matching:after:limit:now:)``): no list is
/// read whole to be narrowed.
public struct WatchQuery: Sendable, Equatable {
    public var state = WatchFilter.all
    public var codes: Set<StatusCode>?
    public var families: Set<WatchFamily>?
    /// Codes that match besides ``families`` (the command line's `--status in_transit,problem`).
    public var extraCodes: Set<StatusCode> = []
    public var carrier: Carrier?
    public var forecast: ForecastDay?
    public var text: String?
    /// Only watches with a dated forecast, or else a dated window the recipient asked for (the calendar).
    public var dated = false
    /// Only stalled watches (`?stalled=true`).
    public var stalled = false
    /// Only late watches (`?overdue=true`).
    public var overdue = false

    public init() {}

    public var isEmpty: Bool {
        codes == nil && families == nil && forecast == nil && carrier == nil && text == nil && !dated && !stalled && !overdue
    }

    /// The query without the parts a summary counts by (codes, families, forecast): what the counts are of.
    public var counted: WatchQuery {
        var query = self
        query.codes = nil
        query.families = nil
        query.extraCodes = []
        query.forecast = nil
        query.stalled = false
        query.overdue = false
        return query
    }

    /// The `WHERE` conditions (after the owner's) and their arguments, for rows of `watches` aliased `w`.
    /// Codes and families are kept in their own columns; the text is looked for as the engine does it
    /// (``TextMatch``), `%`, `_` and `\` meaning themselves.
    /// The owner's condition, one `?`. A search through SQLite's trigram table starts from the rows the table
    /// names, not from the owner's whole list: `+` keeps the planner, which has no statistics, off the owner's
    /// index (there it would read every row of a 100,000-watch list to keep one).
    func ownerCondition(match: TextMatch) -> String {
        guard case .trigramTable = match, let text, let needle = SearchText.needle(text),
            !TextMatch.endTrigrams(of: needle).isEmpty
        else { return "w.owner = ?" }
        return "+w.owner = ?"
    }

    func conditions(now: Date, match: TextMatch) -> (sql: String, arguments: [SQLValue]) {
        var sql = ""
        var arguments: [SQLValue] = []
        func list(_ values: [String]) -> String {
            arguments += values.map(SQLValue.text)
            return Array(repeating: "?", count: values.count).joined(separator: ", ")
        }
        switch state {
        case .all: break
        case .active: sql += " AND w.active = 1"
        case .finished: sql += " AND w.active = 0"
        }
        if let carrier {
            sql += " AND w.carrier = ?"
            arguments.append(.text(carrier.rawValue))
        }
        if let codes {
            sql += " AND w.status_code IN (\(list(codes.map(\.rawValue).sorted())))"
        }
        if let families {
            let names = families.map(\.rawValue).sorted()
            if extraCodes.isEmpty {
                sql += names.count == 1 ? " AND w.family = ?" : " AND w.family IN (\(list(names)))"
                if names.count == 1 { arguments.append(.text(names[0])) }
            } else {
                let inFamilies = list(names)
                let inCodes = list(extraCodes.map(\.rawValue).sorted())
                sql += " AND (w.family IN (\(inFamilies)) OR w.status_code IN (\(inCodes)))"
            }
        }
        if let forecast {
            // Parcels still on their way: a finished one is expected no more (as the summary counts them).
            sql += " AND w.active = 1 AND w.forecast_date = ?"
            arguments.append(.text(forecast.isoDate(now: now)))
        }
        if dated { sql += " AND w.dated = 1" }
        if stalled { sql += " AND w.stalled_at IS NOT NULL AND w.active = 1" }
        if overdue { sql += " AND w.overdue_at IS NOT NULL AND w.active = 1" }
        if let text, let needle = SearchText.needle(text) {
            let (condition, values) = match.condition("w.search_text", needle: needle)
            sql += " AND " + condition
            arguments += values
        }
        return (sql, arguments)
    }
}

/// Counts over an owner's watches: by status code, by family, active and finished, forecast today and
/// tomorrow (`GET /v1/watches/summary`), counted by the database (`GROUP BY`).
public struct WatchSummary: Sendable, Equatable {
    public var total = 0
    public var active = 0
    public var byCode: [String: Int] = [:]
    public var byFamily: [String: Int] = Dictionary(uniqueKeysWithValues: WatchFamily.allCases.map { ($0.rawValue, 0) })
    public var forecastToday = 0
    public var forecastTomorrow = 0
    /// Active watches stalled now.
    public var stalled = 0
    /// Active watches late now.
    public var overdue = 0

    public init() {}

    public var json: [String: Any] {
        [
            "total": total, "active": active, "finished": total - active, "by_status": byCode, "by_family": byFamily,
            "forecast": ["today": forecastToday, "tomorrow": forecastTomorrow], "stalled": stalled, "overdue": overdue,
        ]
    }
}

/// The columns a watch's list is narrowed by, from its latest shipment: kept on the watch's row so a
/// narrowed list is an indexed query. Filled when a shipment is recorded, when a watch is added or
/// relabelled, and for rows of earlier versions by the migration that made the columns.
struct ListColumns: Equatable {
    var statusCode: String?
    var family: String
    var forecastDate: String?
    var lastEventAt: String?
    /// A dated forecast, or a dated window asked for: the watch has a day on the calendar.
    var dated: Bool
    var searchText: String

    init(shipment: Shipment?, label: String?, digits: String, record: ParcelRecord? = nil) {
        statusCode = shipment?.status.code.rawValue
        family = WatchFamily(shipment).rawValue
        // The day it is planned to come (``Shipment/plannedDay``: the day it went out while out for delivery).
        forecastDate = shipment?.plannedDay.map(ForecastDay.isoDate)
        lastEventAt = shipment?.events.compactMap(\.at).max()?.iso8601
        dated = shipment?.scheduledDelivery?.date != nil || shipment?.requestedDelivery?.date != nil
        searchText = SearchText.stored(label: label, digits: digits, record: record)
    }

    /// From a served shipment's JSON (the migration, a watch added with a shipment known); a JSON that does
    /// not decode counts as no answer yet.
    init(servedJSON: Data?, label: String?, digits: String, record: ParcelRecord? = nil) {
        let shipment = servedJSON.flatMap { try? JSONDecoder().decode(Shipment.self, from: $0) }
        self.init(shipment: shipment, label: label, digits: digits, record: record)
    }

    var values: [SQLValue] {
        [
            statusCode.map(SQLValue.text) ?? .null, .text(family), forecastDate.map(SQLValue.text) ?? .null,
            lastEventAt.map(SQLValue.text) ?? .null, .integer(dated ? 1 : 0), .text(searchText),
        ]
    }

    /// The columns of ``values`` a recorded answer sets (all but the search text, which is the label's).
    static let recorded = 5

    static let assignments =
        "status_code = ?, family = ?, forecast_date = ?, last_event_at = ?, dated = ?, search_text = ?"

    /// Fills the columns of every row that has none yet (rows of earlier versions), a thousand at a time.
    static func backfill(on connection: some SQLConnection) throws {
        while true {
            let rows = try connection.run(
                """
                SELECT w.id, w.label, w.number, s.json FROM watches w LEFT JOIN shipments s ON s.number = w.number
                WHERE w.search_text IS NULL ORDER BY w.id LIMIT 1000
                """, [])
            guard !rows.isEmpty else { return }
            for row in rows {
                let columns = ListColumns(
                    servedJSON: try row.data("json"), label: try row.text("label"), digits: try row.requiredText("number"))
                try connection.run(
                    "UPDATE watches SET \(assignments) WHERE id = ?", columns.values + [.integer(Int64(try row.requiredInt("id")))])
            }
        }
    }
}
