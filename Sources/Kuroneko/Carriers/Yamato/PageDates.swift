import Foundation

/// Reads the page's year-less dates and gives them the year they most likely belong to.
///
/// The page never prints a year. History rows lie in the past, so a row gets the latest year that puts it
/// no later than one day after the reference time (the day of slack absorbs clock skew and time zones).
/// A scheduled delivery may lie either side of now, so it gets the year that puts it closest to now.
struct PageDates {
    private let now: JapanDateTime
    private let latestEventTime: JapanDateTime

    init(now: Date) {
        self.now = JapanDateTime(now)
        self.latestEventTime = JapanDateTime(now.addingTimeInterval(86_400))
    }

    /// Reads a history date: `MM月DD日 HH:MM`, `MM月DD日`, either with an optional `YYYY年` prefix; months and
    /// days may have one digit or two (`5月02日 15:33`).
    /// - Returns: `nil` when the text is not in one of those forms or names no real day.
    func eventTime(from text: String) -> JapanDateTime? {
        var scanner = ByteScanner(text)
        var year: Int?
        let first = scanner.number(maxDigits: 4)
        var month = first
        if let first, scanner.skip("年") {
            year = first
            month = scanner.number(maxDigits: 2)
        }
        guard let month, scanner.skip("月"), let day = scanner.number(maxDigits: 2), scanner.skip("日") else {
            return nil
        }
        var time: JapanDateTime.TimeOfDay?
        if scanner.skipSpaces() {
            guard let hour = scanner.number(maxDigits: 2), scanner.skip(":"),
                let minute = scanner.number(maxDigits: 2),
                let parsed = JapanDateTime.TimeOfDay(hour: hour, minute: minute)
            else { return nil }
            time = parsed
        }
        guard scanner.isAtEnd else { return nil }
        if let year {
            return JapanDateTime(year: year, month: month, day: day, time: time)
        }
        return latestYear(month: month, day: day, time: time)
    }

    /// Reads お届け予定日時 (and お届け希望日時, お届け希望時間): `MM/DD`, optionally followed by a window
    /// `HH:MM-HH:MM`; or a window alone (`08:00-12:00`); or a deadline alone (`10:00まで`, the end of a window
    /// with no start). The raw text is always kept; the date is `nil` when the text does not start with
    /// `MM/DD`, and the window is `nil` when its wording is none of those.
    func scheduledDelivery(from text: String) -> ScheduledDelivery {
        var scanner = ByteScanner(text)
        guard let month = scanner.number(maxDigits: 2), scanner.skip("/"),
            let day = scanner.number(maxDigits: 2)
        else {
            var times = ByteScanner(text)
            if let start = times.time() {
                if times.skipDash(), let end = times.time(), times.isAtEnd {
                    return ScheduledDelivery(raw: text, date: nil, windowStart: start.text, windowEnd: end.text)
                }
                var deadline = ByteScanner(text)
                _ = deadline.time()
                if deadline.skip("まで"), deadline.isAtEnd {
                    return ScheduledDelivery(raw: text, date: nil, windowStart: nil, windowEnd: start.text)
                }
            }
            return ScheduledDelivery(raw: text, date: nil, windowStart: nil, windowEnd: nil)
        }
        let date = closestYear(month: month, day: day)
        var windowStart: String?
        var windowEnd: String?
        if scanner.skipSpaces(), let start = scanner.time() {
            if scanner.skipDash(), let end = scanner.time(), scanner.isAtEnd {
                windowStart = start.text
                windowEnd = end.text
            } else if scanner.skip("まで"), scanner.isAtEnd {
                windowEnd = start.text
            }
        }
        return ScheduledDelivery(raw: text, date: date, windowStart: windowStart, windowEnd: windowEnd)
    }

    private func latestYear(month: Int, day: Int, time: JapanDateTime.TimeOfDay?) -> JapanDateTime? {
        // Eight years back always reaches a leap year, for a row dated 02月29日.
        for year in stride(from: latestEventTime.year, through: latestEventTime.year - 8, by: -1) {
            if let candidate = JapanDateTime(year: year, month: month, day: day, time: time),
                candidate <= latestEventTime
            {
                return candidate
            }
        }
        return nil
    }

    private func closestYear(month: Int, day: Int) -> JapanDateTime? {
        let candidates = (now.year - 1...now.year + 1).compactMap {
            JapanDateTime(year: $0, month: month, day: day)
        }
        return candidates.min {
            abs($0.minutesSinceEpoch - now.minutesSinceEpoch) < abs($1.minutesSinceEpoch - now.minutesSinceEpoch)
        }
    }
}

/// Steps through the ASCII and a few Japanese tokens of a short date text.
private struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { index == bytes.count }

    mutating func number(maxDigits: Int) -> Int? {
        var value = 0
        var count = 0
        while index < bytes.count, count < maxDigits, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
            count += 1
        }
        return count == 0 ? nil : value
    }

    mutating func skip(_ token: StaticString) -> Bool {
        let count = token.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let tokenBytes = UnsafeBufferPointer(start: token.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != tokenBytes[offset] {
            return false
        }
        index += count
        return true
    }

    /// Skips ASCII spaces, no-break spaces (U+00A0) and ideographic spaces (U+3000); true if there was at
    /// least one.
    mutating func skipSpaces() -> Bool {
        let start = index
        while true {
            if index < bytes.count, bytes[index] == 0x20 {
                index += 1
            } else if !skip("\u{3000}"), !skip("\u{A0}") {
                break
            }
        }
        return index > start
    }

    /// Skips a hyphen or one of the wave dashes used between two times.
    mutating func skipDash() -> Bool {
        skip("-") || skip("～") || skip("〜") || skip("－")
    }

    mutating func time() -> JapanDateTime.TimeOfDay? {
        guard let hour = number(maxDigits: 2), skip(":"), let minute = number(maxDigits: 2) else { return nil }
        return JapanDateTime.TimeOfDay(hour: hour, minute: minute)
    }
}
