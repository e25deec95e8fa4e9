import Foundation
import Synchronization

/// One line per request: a constant message and key=value fields, every field from a closed set or
/// checked (no control characters, no spaces), never a tracking number.
///
/// `request time=2026-11-30T00:40:00.123Z id=5f3a-1 method=GET route=/v1/shipments/{number} status=200
/// duration_ms=0.412 cache=hit`
public struct AccessLogMiddleware: HTTPMiddleware {
    private let write: @Sendable (String) -> Void
    private let clock = LogTimestamps()

    /// - Parameter write: where lines go (the server passes a buffered standard error).
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        // Plain concatenation: this runs once per request, on the hot path of cache hits.
        let microseconds = Int(Double(DispatchTime.now().uptimeNanoseconds &- request.receivedAt) / 1000)
        let fraction = microseconds % 1000
        let duration =
            String(microseconds / 1000) + (fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".") + String(fraction)
        var line = "request time="
        line.reserveCapacity(192)
        line += clock.now()
        line += " id="
        line += request.headers["x-request-id"] ?? "-"
        line += " method="
        line += HTTPMethod.label(request.method)
        line += " route="
        line += response.route ?? "unmatched"
        line += " status="
        line += String(response.status)
        line += " duration_ms="
        line += duration
        if let cache = response.header("X-Cache"), RequestIDMiddleware.isSane(cache) {
            line += " cache="
            line += cache
        }
        write(line)
    }
}

/// RFC 3339 UTC timestamps with milliseconds, the date and time formatted once a second.
final class LogTimestamps: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    func now() -> String {
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
        let milliseconds = time.tv_nsec / 1_000_000
        return prefix + (milliseconds < 10 ? ".00" : milliseconds < 100 ? ".0" : ".") + String(milliseconds) + "Z"
    }
}
