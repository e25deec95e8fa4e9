/// The order a list is read in (`?sort=`): the order the watches were added (the default, paged by cursor), or
/// a column a person sorts a table by, either way. Ties keep a fixed order (the latest event first, then the
/// newest watch), so a page read twice is the same page. Missing values (no forecast, no event yet, never
/// checked) come last whichever way.
public struct WatchOrder: Sendable, Equatable {
    public enum Key: String, CaseIterable, Sendable {
        /// The order added.
        case added
        /// Needing attention first (``WatchOrder/familyRank``), then the latest event.
        case status
        /// The planned delivery day (``WatchQuery``'s forecast).
        case expected
        /// The time of the latest event.
        case event
        /// When Kuroneko last asked the carrier.
        case checked
        /// The tracking number's digits.
        case number
    }

    public var key: Key
    public var descending: Bool

    public init(_ key: Key = .added, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    /// From `status`, `-expected` (`-` for the other way), …; `nil` for anything else.
    public init?(_ text: String) {
        let descending = text.hasPrefix("-")
        guard let key = Key(rawValue: String(text.dropFirst(descending ? 1 : 0))) else { return nil }
        self.init(key, descending: descending)
    }

    public var text: String { (descending ? "-" : "") + key.rawValue }

    /// Every value `?sort=` takes, for messages and the API's description.
    public static var allTexts: [String] { Key.allCases.flatMap { [$0.rawValue, "-" + $0.rawValue] } }

    /// The families in the order a person deals with them: what needs them first, what is done last.
    public static let familyRank: [WatchFamily] = [
        .problem, .returning, .waiting, .out, .transit, .accepted, .pending, .delivered, .returned,
    ]

    /// The `ORDER BY` terms for rows of `watches` aliased `w`, the same on SQLite and PostgreSQL.
    var sql: String {
        let way = descending ? " DESC" : ""
        let latestFirst = "(w.last_event_at IS NULL), w.last_event_at DESC, w.id DESC"
        switch key {
        case .added: return "w.id" + way
        case .status:
            let ranks = Self.familyRank.enumerated().map { "WHEN '\($0.element.rawValue)' THEN \($0.offset)" }
            return "CASE w.family " + ranks.joined(separator: " ") + " ELSE \(Self.familyRank.count) END" + way
                + ", " + latestFirst
        case .expected: return "(w.forecast_date IS NULL), w.forecast_date" + way + ", " + latestFirst
        case .event: return "(w.last_event_at IS NULL), w.last_event_at" + way + ", w.id DESC"
        case .checked: return "(w.checked_at IS NULL), w.checked_at" + way + ", w.id DESC"
        case .number: return "w.number" + way + ", w.id"
        }
    }
}
