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
        var fields = [
            "request", "method=\(method)", "route=\(route)", "status=\(status)",
            "duration_ms=\(String(format: "%.3f", seconds * 1000))",
        ]
        if let cache { fields.append("cache=\(cache)") }
        write(fields.joined(separator: " "))
    }
}
