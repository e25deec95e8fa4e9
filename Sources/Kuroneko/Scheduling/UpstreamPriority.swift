/// How urgently a number is wanted. A POST is filled from the highest priority down, so lookups a person
/// waits for are never held up by background work.
public enum UpstreamPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Watch-list polling: sent when nothing more urgent waits, or to top up a POST.
    case background = 0
    /// An explicit request to skip a fresh cached copy.
    case refresh = 1
    /// Someone is waiting: API and command-line lookups.
    case interactive = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Highest first: the order POSTs are filled in.
    static let descending: [UpstreamPriority] = [.interactive, .refresh, .background]

    public var description: String {
        switch self {
        case .background: "background"
        case .refresh: "refresh"
        case .interactive: "interactive"
        }
    }
}
