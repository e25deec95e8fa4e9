import Foundation
import Synchronization

/// One line per request: a constant message and key=value fields, every field from a closed set or
/// checked (no control characters, no spaces), never a tracking number.
///
/// `request time=2026-11-30T00:40:00.123Z id=5f3a-1 method=GET route=/v1/shipments/{number} status=200
/// duration_ms=0.412 cache=hit`
public struct AccessLogMiddleware: HTTPMiddleware {
    private let sink: any LogSink
    private let format: LogFormat
    private let clock = LogTimestamps()
    /// Longer lines are cut off (they cannot be: every field is from a closed set or at most 64 bytes, 384
    /// when each byte of the request ID is escaped for JSON).
    private static let capacity = 640

    /// - Parameters:
    ///   - sink: where lines go (the server passes a ``BufferedLogWriter`` on standard error).
    ///   - format: `text`, or one JSON object per line with the same fields: `{"time":…,"level":"info",
    ///     "msg":"request","id":…,"method":"GET","route":…,"status":200,"duration_ms":0.412,"cache":"hit"}`.
    public init(sink: any LogSink, format: LogFormat = .text) {
        self.sink = sink
        self.format = format
    }

    /// Lines as strings, to a closure.
    public init(format: LogFormat = .text, write: @escaping @Sendable (String) -> Void) {
        self.init(sink: StringLogSink(write), format: format)
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        // Formatted into a buffer on the stack: this runs once per request, on the hot path of cache hits.
        let microseconds = Int((DispatchTime.now().uptimeNanoseconds &- request.receivedAt) / 1000)
        let cache = response.header("X-Cache")
        if format == .json { return finishJSON(request, response, microseconds: microseconds, cache: cache) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.capacity) { buffer in
            var line = LogLineBuilder(buffer)
            line.append("request time=")
            clock.append(to: &line)
            line.append(" id=")
            line.append(request.id ?? "-")
            line.append(" method=")
            line.append(HTTPMethod.label(request.method))
            line.append(" route=")
            line.append(response.route ?? "unmatched")
            line.append(" status=")
            line.append(decimal: response.status)
            line.append(" duration_ms=")
            line.append(decimal: microseconds / 1000)
            line.append(byte: UInt8(ascii: "."))
            line.append(decimal: microseconds % 1000, minimumDigits: 3)
            if let cache, RequestIDMiddleware.isSane(cache) {
                line.append(" cache=")
                line.append(cache)
            }
            sink.write(line: line.bytes)
        }
    }

    private func finishJSON(_ request: HTTPRequest, _ response: HTTPResponse, microseconds: Int, cache: String?) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.capacity) { buffer in
            var line = LogLineBuilder(buffer)
            line.append("{\"time\":\"")
            clock.append(to: &line)
            line.append("\",\"level\":\"info\",\"msg\":\"request\",\"id\":")
            if let id = request.id {
                line.appendJSONString(id)
            } else {
                line.append("null")
            }
            line.append(",\"method\":\"")
            line.append(HTTPMethod.label(request.method))
            line.append("\",\"route\":")
            line.appendJSONString(response.route ?? "unmatched")
            line.append(",\"status\":")
            line.append(decimal: response.status)
            line.append(",\"duration_ms\":")
            line.append(decimal: microseconds / 1000)
            line.append(byte: UInt8(ascii: "."))
            line.append(decimal: microseconds % 1000, minimumDigits: 3)
            if let cache, RequestIDMiddleware.isSane(cache) {
                line.append(",\"cache\":")
                line.appendJSONString(cache)
            }
            line.append(byte: UInt8(ascii: "}"))
            sink.write(line: line.bytes)
        }
    }
}

/// RFC 3339 UTC timestamps with milliseconds: the time of day by arithmetic, the date from `gmtime_r` once a
/// day and kept in one atomic word, so that the server's threads share no lock and no string for it.
struct LogTimestamps: Sendable {
    /// The day last asked for: `(days since 1970 + 1) << 32 | year << 9 | month << 5 | day`; 0 for none.
    private static let today = Atomic<UInt64>(0)

    /// `2026-11-30T00:40:00.123Z` as a string.
    func now() -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var line = LogLineBuilder(buffer)
            append(to: &line)
            return String(decoding: line.bytes, as: UTF8.self)
        }
    }

    /// `2026-11-30T00:40:00.123Z`
    func append(to line: inout LogLineBuilder) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        Self.append(seconds: Int(time.tv_sec), milliseconds: Int(time.tv_nsec / 1_000_000), to: &line)
    }

    static func append(seconds: Int, milliseconds: Int, to line: inout LogLineBuilder) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = date(ofDay: days)
        line.append(decimal: year, minimumDigits: 4)
        line.append(byte: UInt8(ascii: "-"))
        line.append(decimal: month, minimumDigits: 2)
        line.append(byte: UInt8(ascii: "-"))
        line.append(decimal: day, minimumDigits: 2)
        line.append(byte: UInt8(ascii: "T"))
        line.append(decimal: secondOfDay / 3600, minimumDigits: 2)
        line.append(byte: UInt8(ascii: ":"))
        line.append(decimal: secondOfDay / 60 % 60, minimumDigits: 2)
        line.append(byte: UInt8(ascii: ":"))
        line.append(decimal: secondOfDay % 60, minimumDigits: 2)
        line.append(byte: UInt8(ascii: "."))
        line.append(decimal: milliseconds, minimumDigits: 3)
        line.append(byte: UInt8(ascii: "Z"))
    }

    /// The UTC date of a day counted from 1970-01-01.
    private static func date(ofDay days: Int) -> (year: Int, month: Int, day: Int) {
        let cached = today.load(ordering: .relaxed)
        if days >= 0, cached >> 32 == UInt64(days + 1) {
            return (Int(cached >> 9 & 0x7F_FFFF), Int(cached >> 5 & 0xF), Int(cached & 0x1F))
        }
        var start = time_t(days * 86_400)
        var parts = tm()
        gmtime_r(&start, &parts)
        let date = (year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        if days >= 0, (0..<10_000).contains(date.year) {
            today.store(
                UInt64(days + 1) << 32 | UInt64(date.year) << 9 | UInt64(date.month) << 5 | UInt64(date.day),
                ordering: .relaxed)
        }
        return date
    }
}
