import Foundation
import Kuroneko

/// When a channel's morning summary is made: 07:30 Japan time unless the channel says another minute.
public enum MorningSummaryTime {
    public static let defaultMinute = 7 * 60 + 30
    /// How late a summary is still made (a server down at its minute): 3 hours; later, that day has none.
    public static let lateness = 180

    /// `HH:MM` as a minute of the day; `nil` for anything else.
    public static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    public static func text(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
}

/// Morning summaries: which channels are due, and taking a day's summary once (a conditional update, so two
/// servers on one database make it once).
extension SQLWatchStore {
    public func morningSummariesDue(day: String, minute: Int) async throws -> [ChannelRecord] {
        try await database.read { connection in
            try connection.run(
                Self.channelColumns + """
                     WHERE ch.ended_at IS NULL AND ch.id IN (
                        SELECT channel_id FROM morning_summaries
                        WHERE minute <= ? AND minute >= ? AND (last_day IS NULL OR last_day <> ?))
                    ORDER BY ch.id
                    """, [.integer(Int64(minute)), .integer(Int64(minute - MorningSummaryTime.lateness)), .text(day)]
            ).map(Self.channel(from:))
        }
    }

    public func queueMorningSummary(channel: Int64, day: String, summary: Data?, at now: Date) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE morning_summaries SET last_day = ? WHERE channel_id = ? AND (last_day IS NULL OR last_day <> ?)",
                [.text(day), .integer(channel), .text(day)])
            guard connection.changes > 0 else { return false }
            if let summary {
                try connection.run(
                    """
                    INSERT INTO channel_outbox (channel_id, watch_id, kind, label, shipment_json, created_at, next_attempt_at)
                    VALUES (?, NULL, ?, NULL, ?, ?, ?)
                    """,
                    [
                        .integer(channel), .text(AnnouncementKind.morningSummary.rawValue), .blob(summary),
                        .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970),
                    ])
            }
            return true
        }
    }

    public func morningSummaryMinutes(owner: WatchOwner) async throws -> [Int64: Int] {
        try await database.read { connection in
            var minutes: [Int64: Int] = [:]
            for row in try connection.run(
                "SELECT ms.channel_id, ms.minute FROM morning_summaries ms JOIN channels ch ON ch.id = ms.channel_id WHERE ch.owner = ?",
                [.text(owner.id)])
            {
                minutes[Int64(try row.requiredInt("channel_id"))] = try row.requiredInt("minute")
            }
            return minutes
        }
    }
}
