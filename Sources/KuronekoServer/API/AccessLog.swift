import Foundation
import Kuroneko

/// One structured line per request: a constant message and key=value fields, tracking numbers masked.
public struct AccessLog: Sendable {
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go (the server passes standard error); `nil` logs nothing.
    public init(write: (@Sendable (String) -> Void)?) {
        self.write = write ?? { _ in }
    }

    func record(method: String, route: String, status: Int, seconds: Double, cache: String?) {
        // Plain interpolation: this runs once per request, on the hot path of cache hits.
        let microseconds = Int((seconds * 1_000_000).rounded())
        let fraction = String(microseconds % 1000)
        let duration = "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        let line = "request method=\(method) route=\(route) status=\(status) duration_ms=\(duration)"
        write(cache.map { line + " cache=" + $0 } ?? line)
    }
}
