import Foundation
import Synchronization

/// One line per request: a constant message and key=value fields, every field from a closed set or
/// checked (no control characters, no spaces), never a tracking number.
///
/// `request time=2026-11-30T00:40:00.123Z id=5f3a-1 method=GET route=/v1/shipments/{number} status=200
/// duration_ms=0.412 cache=hit`
public struct AccessLogMiddleware: HTTPMiddleware {
    private let sink: any LogSink
    private let clock = LogTimestamps()
    /// Longer lines are cut off (they cannot be: every field is from a closed set or at most 64 bytes).
    private static let capacity = 384

    /// - Parameter sink: where lines go (the server passes a ``BufferedLogWriter`` on standard error).
    public init(sink: any LogSink) {
        self.sink = sink
    }

    /// Lines as strings, to a closure.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.init(sink: StringLogSink(write))
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        // Formatted into a buffer on the stack: this runs once per request, on the hot path of cache hits.
        let microseconds = Int((DispatchTime.now().uptimeNanoseconds &- request.receivedAt) / 1000)
        let cache = response.header("X-Cache")
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
}

/// RFC 3339 UTC timestamps with milliseconds, the date and time formatted once a second.
final class LogTimestamps: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// `2026-11-30T00:40:00.123Z`
    func append(to line: inout LogLineBuilder) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let second = time.tv_sec
        let prefix = cache.withLock { cached -> String in
            if cached.second == second { return cached.text }
            var seconds = second
            var parts = tm()
            gmtime_r(&seconds, &parts)
            let text =
                String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                    parts.tm_hour, parts.tm_min, parts.tm_sec)
            cached = (second, text)
            return text
        }
        line.append(prefix)
        line.append(byte: UInt8(ascii: "."))
        line.append(decimal: time.tv_nsec / 1_000_000, minimumDigits: 3)
        line.append(byte: UInt8(ascii: "Z"))
    }
}
