import Foundation

/// What changed in an owner's list after a cursor: the watches added or changed (each as it is now), the
/// numbers removed, and the cursor to ask from next. A check that finds the same answer changes nothing here.
public struct WatchChanges: Sendable, Equatable {
    /// Where the next question starts: the last change given (a change too recent to be sure of comes again).
    public let cursor: Int64
    /// The newest change given (the cursor when none was): past the cursor while a change is too recent.
    public let latest: Int64
    public let watches: [Watch]
    /// The numbers removed (and not watched again since), in the order removed.
    public let removed: [String]
    /// Whether more changes follow the ones given.
    public let more: Bool

    public init(cursor: Int64, latest: Int64? = nil, watches: [Watch], removed: [String], more: Bool) {
        self.cursor = cursor
        self.latest = max(cursor, latest ?? cursor)
        self.watches = watches
        self.removed = removed
        self.more = more
    }

    /// The most changes one answer gives.
    public static let maximumLimit = 1_000
    /// How long removals are kept: a cursor older than the oldest kept is answered "read the list again".
    public static let removalsKept: TimeInterval = 7 * 86_400

    /// A short digest of an answer's JSON (64-bit FNV-1a, hexadecimal): equal answers, equal digests.
    public static func digest(_ served: Data) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in served { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash, radix: 16)
    }
}
