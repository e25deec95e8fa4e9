import Foundation

/// A calendar date in Japan time (UTC+09:00, no daylight saving), with the time of day when the page gives one.
/// An event abroad (Japan Post's international rows) keeps the wall clock of where it happened, with that
/// place's offset (``utcOffsetMinutes``).
///
/// Encoded as ISO 8601: `2026-10-27T11:27:00+09:00`, or `2026-10-27` when there is no time.
public struct JapanDateTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    /// The time of day as hour and minute, or `nil` for a date without a time.
    public let time: TimeOfDay?
    /// The offset from UTC of the wall clock: 540 (+09:00) for Japan.
    public let utcOffsetMinutes: Int

    public struct TimeOfDay: Hashable, Sendable, Comparable {
        public let hour: Int
        public let minute: Int

        public init?(hour: Int, minute: Int) {
            guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
            self.hour = hour
            self.minute = minute
        }

        public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
            (lhs.hour, lhs.minute) < (rhs.hour, rhs.minute)
        }

        /// `HH:MM`.
        public var text: String { twoDigits(hour) + ":" + twoDigits(minute) }
    }

    /// Creates a value for a date that exists in the Gregorian calendar, or `nil`.
    public init?(year: Int, month: Int, day: Int, time: TimeOfDay? = nil, utcOffsetMinutes: Int = 540) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day), (-14 * 60...14 * 60).contains(utcOffsetMinutes)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.time = time
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// The Japan-time calendar date and minute of an instant.
    public init(_ instant: Date) {
        let japanSeconds = Int((instant.timeIntervalSince1970).rounded(.down)) + Self.offsetSeconds
        let days = japanSeconds.floorDivided(by: 86_400)
        let secondOfDay = japanSeconds - days * 86_400
        let (year, month, day) = Self.civilDate(fromDaysSinceEpoch: days)
        self.year = year
        self.month = month
        self.day = day
        self.time = TimeOfDay(hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60)
        self.utcOffsetMinutes = Self.offsetSeconds / 60
    }

    /// The instant this value names; a date without a time means its first moment.
    public var instant: Date {
        let days = Self.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + (time?.hour ?? 0) * 3600 + (time?.minute ?? 0) * 60 - utcOffsetMinutes * 60
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Minutes since 1970-01-01 00:00 Japan time; a date without a time counts from its first minute.
    var minutesSinceEpoch: Int {
        Self.daysSinceEpoch(year: year, month: month, day: day) * 1440 + (time?.hour ?? 0) * 60 + (time?.minute ?? 0)
            + (Self.offsetSeconds / 60 - utcOffsetMinutes)
    }

    /// `YYYY-MM-DD`.
    public var dateText: String {
        String(year) + "-" + twoDigits(month) + "-" + twoDigits(day)
    }

    /// ISO 8601 with the offset (+09:00 in Japan), or the bare date when there is no time.
    public var iso8601: String {
        guard let time else { return dateText }
        let offset = abs(utcOffsetMinutes)
        let sign = utcOffsetMinutes < 0 ? "-" : "+"
        return dateText + "T" + time.text + ":00" + sign + twoDigits(offset / 60) + ":" + twoDigits(offset % 60)
    }

    public var description: String { iso8601 }

    public static func < (lhs: JapanDateTime, rhs: JapanDateTime) -> Bool {
        lhs.minutesSinceEpoch < rhs.minutesSinceEpoch
    }

    /// Reads `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS±HH:MM`, the forms ``iso8601`` writes.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count == 25,
            let year = Int(digits: bytes[0..<4]), bytes[4] == UInt8(ascii: "-"),
            let month = Int(digits: bytes[5..<7]), bytes[7] == UInt8(ascii: "-"),
            let day = Int(digits: bytes[8..<10])
        else { return nil }
        var time: TimeOfDay?
        var offset = Self.offsetSeconds / 60
        if bytes.count == 25 {
            guard bytes[10] == UInt8(ascii: "T"), bytes[16] == UInt8(ascii: ":"), bytes[17] == UInt8(ascii: "0"),
                bytes[18] == UInt8(ascii: "0"), bytes[19] == UInt8(ascii: "+") || bytes[19] == UInt8(ascii: "-"),
                bytes[22] == UInt8(ascii: ":"), bytes[13] == UInt8(ascii: ":"),
                let hour = Int(digits: bytes[11..<13]), let minute = Int(digits: bytes[14..<16]),
                let offsetHours = Int(digits: bytes[20..<22]), let offsetMinutes = Int(digits: bytes[23..<25]),
                let parsed = TimeOfDay(hour: hour, minute: minute)
            else { return nil }
            time = parsed
            offset = (offsetHours * 60 + offsetMinutes) * (bytes[19] == UInt8(ascii: "-") ? -1 : 1)
        }
        self.init(year: year, month: month, day: day, time: time, utcOffsetMinutes: offset)
    }

    static let offsetSeconds = 9 * 3600

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm: exact for the proleptic Gregorian calendar.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear.floorDivided(by: 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilDate(fromDaysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private func twoDigits(_ value: Int) -> String {
    value < 10 ? "0" + String(value) : String(value)
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// Reads a run of ASCII digits; `nil` when any byte is not a digit.
    init?(digits: ArraySlice<UInt8>) {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        self = value
    }
}
