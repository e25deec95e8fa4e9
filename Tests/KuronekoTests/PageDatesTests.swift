import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

@Suite("Year-less dates")
struct PageDatesTests {
    /// A Japan-time moment written as ISO 8601 with +09:00.
    private func japan(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    @Test(
        "history rows get the latest year not after now plus one day",
        arguments: [
            ("2027-01-04T10:00:00+09:00", "12月28日 18:00", "2026-12-28T18:00:00+09:00"),
            ("2027-01-04T10:00:00+09:00", "01月03日 15:10", "2027-01-03T15:10:00+09:00"),
            ("2027-01-04T10:00:00+09:00", "01月05日 09:59", "2027-01-05T09:59:00+09:00"),
            ("2027-01-04T10:00:00+09:00", "01月05日 10:01", "2026-01-05T10:01:00+09:00"),
            ("2026-12-31T23:30:00+09:00", "01月01日 08:00", "2027-01-01T08:00:00+09:00"),
            ("2026-10-30T12:00:00+09:00", "10月27日 11:27", "2026-10-27T11:27:00+09:00"),
            ("2026-07-20T21:00:00+09:00", "07月18日", "2026-07-18"),
            ("2026-07-20T21:00:00+09:00", "2024年02月29日 10:00", "2024-02-29T10:00:00+09:00"),
        ])
    func eventYear(now: String, text: String, expected: String) throws {
        let dates = PageDates(now: try japan(now))
        #expect(dates.eventTime(from: text)?.iso8601 == expected)
    }

    @Test("a row on 29 February goes back to the last leap year that fits")
    func leapDay() throws {
        let dates = PageDates(now: try japan("2027-03-01T09:00:00+09:00"))
        #expect(dates.eventTime(from: "02月29日 10:00")?.iso8601 == "2024-02-29T10:00:00+09:00")
    }

    @Test("the reference time is read in Japan time, whatever its offset")
    func utcReference() throws {
        // 2026-12-31 20:00 UTC is already 2027-01-01 05:00 in Japan.
        let dates = PageDates(now: try japan("2026-12-31T20:00:00Z"))
        #expect(dates.eventTime(from: "01月01日 04:00")?.iso8601 == "2027-01-01T04:00:00+09:00")
        #expect(dates.scheduledDelivery(from: "01/01").date?.dateText == "2027-01-01")
    }

    @Test(
        "dates that do not exist or are not in the page's form are refused",
        arguments: [
            "13月01日 10:00", "02月30日 10:00", "10月27日 25:00", "10月27日 11:61", "10/27 11:27", "10月27日11:27",
            "10月27日 11:27 ", "", "１０月２７日 11:27",
        ])
    func malformedEventDates(text: String) throws {
        #expect(PageDates(now: try japan("2026-10-30T12:00:00+09:00")).eventTime(from: text) == nil)
    }

    @Test(
        "a scheduled delivery gets the year closest to now",
        arguments: [
            ("2027-01-04T10:00:00+09:00", "01/03　14:00-16:00", "2027-01-03", "14:00", "16:00"),
            ("2026-12-30T10:00:00+09:00", "01/03", "2027-01-03", nil, nil),
            ("2027-01-02T10:00:00+09:00", "12/30 08:00-12:00", "2026-12-30", "08:00", "12:00"),
            ("2026-01-12T09:40:00+09:00", "01/12　14:00-16:00", "2026-01-12", "14:00", "16:00"),
            ("2026-07-20T21:00:00+09:00", "07/20　午前中", "2026-07-20", nil, nil),
        ] as [(String, String, String, String?, String?)])
    func scheduledYear(now: String, text: String, date: String, start: String?, end: String?) throws {
        let scheduled = PageDates(now: try japan(now)).scheduledDelivery(from: text)
        #expect(scheduled.raw == text)
        #expect(scheduled.date?.dateText == date)
        #expect(scheduled.windowStart == start)
        #expect(scheduled.windowEnd == end)
    }

    @Test("a scheduled delivery without MM/DD keeps its text and no date")
    func scheduledWithoutDate() throws {
        let scheduled = PageDates(now: try japan("2026-07-20T21:00:00+09:00")).scheduledDelivery(from: "調整中")
        #expect(scheduled == ScheduledDelivery(raw: "調整中", date: nil, windowStart: nil, windowEnd: nil))
    }

    @Test("Japan-time calendar conversion round-trips across the whole range of days")
    func civilConversion() {
        for days in stride(from: -800_000, through: 2_900_000, by: 997) {
            let (year, month, day) = JapanDateTime.civilDate(fromDaysSinceEpoch: days)
            #expect(JapanDateTime.daysSinceEpoch(year: year, month: month, day: day) == days)
        }
        let moment = JapanDateTime(Date(timeIntervalSince1970: 0))
        #expect(moment.iso8601 == "1970-01-01T09:00:00+09:00")
        #expect(JapanDateTime(iso8601: "2026-10-27T11:27:00+09:00")?.instant.timeIntervalSince1970 == 1_793_068_020)
    }
}
