import Foundation
import Testing

@testable import KuronekoHTTP

@Suite("Access-log timestamps")
struct LogTimestampTests {
    /// The access log's timestamps (time of day by arithmetic, the date kept for the day) against the C
    /// library's gmtime, over three centuries in steps that land on every month, day and time of day, and on
    /// the instants around midnight and leap days.
    @Test func agreeWithGmtime() {
        var instants: [Int] = [
            0, -1, 86_399, 86_400, 951_782_399, 951_868_799, 4_107_542_400, 4_107_542_399, -2_208_988_800,
        ]
        var second = -2_208_988_800  // 1900-01-01
        while second < 7_258_118_400 {  // 2200-01-01
            instants.append(second)
            second += 3_601 * 37 + 17
        }
        for instant in instants {
            let milliseconds = abs(instant) % 1000
            var ours = ""
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
                var line = LogLineBuilder(buffer)
                LogTimestamps.append(seconds: instant, milliseconds: milliseconds, to: &line)
                ours = String(decoding: line.bytes, as: UTF8.self)
            }
            var time = time_t(instant)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec, milliseconds)
            #expect(ours == expected, "at \(instant) s")
            if ours != expected { return }
        }
        #expect(instants.count > 30_000)
    }
}
