import Foundation
import Kuroneko
import KuronekoStore

/// The expected deliveries of active watches as an iCalendar feed (RFC 5545): one event per watch with a
/// dated forecast (お届け予定日時), or else a dated window the recipient asked for (お届け希望日時), in its
/// window (all-day when the page gives no start and end hours), with a UID that stays the same as the
/// schedule moves, so a calendar app updates the event instead of adding another. While the carrier's page
/// for a number is not understood, its event keeps the last forecast read and says so (`（未確認）` in the title,
/// a sentence in the description), since the forecast may have moved unseen.
public enum DeliveryCalendar {
    public static func feed(for watches: [Watch], now: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Kuroneko//Deliveries//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:Kuroneko deliveries",
        ]
        for watch in watches where watch.active {
            guard let shipment = watch.latest?.shipment, let (scheduled, wording) = expected(shipment),
                let date = scheduled.date
            else { continue }
            lines += ["BEGIN:VEVENT", "UID:watch-\(watch.id)-\(watch.number.digits)@kuroneko", "DTSTAMP:\(utc(now))"]
            if let start = hour(scheduled.windowStart), let end = hour(scheduled.windowEnd),
                let day = JapanDateTime(year: date.year, month: date.month, day: date.day)?.instant
            {
                lines.append("DTSTART:\(utc(day.addingTimeInterval(start)))")
                lines.append("DTEND:\(utc(day.addingTimeInterval(end)))")
            } else {
                lines.append("DTSTART;VALUE=DATE:\(dateOnly(date))")
                let next = JapanDateTime(date.instant.addingTimeInterval(86_400))
                lines.append("DTEND;VALUE=DATE:\(dateOnly(next))")
            }
            let unread = watch.pageRefusedAt != nil
            let title =
                (watch.label.map { "\($0): " } ?? "") + "\(watch.number.formatted) \(shipment.status.label)"
                + (unread ? "（未確認）" : "")
            lines.append("SUMMARY:" + escape(title))
            lines.append(
                "DESCRIPTION:"
                    + escape(
                        "\(shipment.carrier.englishName) \(watch.number.formatted), "
                            + "\(shipment.status.labelEnglish ?? shipment.status.label); \(wording) \(scheduled.raw)"
                            + (unread
                                ? ". The carrier's page could not be read since "
                                    + "\(JapanDateTime(watch.pageRefusedAt ?? now).iso8601): this is the last forecast read" : "")
                    ))
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.flatMap(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// The forecast when it has a date, else the requested window when that has one.
    private static func expected(_ shipment: Shipment) -> (ScheduledDelivery, String)? {
        if let scheduled = shipment.scheduledDelivery, scheduled.date != nil { return (scheduled, "scheduled") }
        if let requested = shipment.requestedDelivery, requested.date != nil { return (requested, "requested") }
        return nil
    }

    private static func hour(_ text: String?) -> TimeInterval? {
        guard let text, let value = Int(text.prefix { $0.isNumber }) else { return nil }
        return TimeInterval(value) * 3_600
    }

    /// `20261201T050000Z`
    static func utc(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
            parts.tm_min, parts.tm_sec)
    }

    private static func dateOnly(_ date: JapanDateTime) -> String {
        String(format: "%04d%02d%02d", date.year, date.month, date.day)
    }

    /// TEXT values: backslash, semicolon, comma and newline escaped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Lines longer than 75 octets are folded: continued on the next line after one space, never inside a
    /// UTF-8 sequence.
    static func fold(_ line: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            let limit = lines.isEmpty ? 75 : 74
            if octets + size > limit {
                lines.append(lines.isEmpty ? current : " " + current)
                current = ""
                octets = 0
            }
            current.append(character)
            octets += size
        }
        lines.append(lines.isEmpty ? current : " " + current)
        return lines
    }
}
