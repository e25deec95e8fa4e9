/// The misbehaviour the simulator can be told to show, by flag at start or at runtime through its admin
/// endpoint. JSON keys are the snake_case names below; absent keys leave a setting as it is.
public struct SimulatorFaults: Codable, Sendable, Hashable {
    /// Extra delay before every answer to the tracking form.
    public var latencyMilliseconds: Int
    /// The share of form POSTs answered with HTTP 500, from 0 to 1.
    public var errorRate: Double
    /// Answer every form POST with HTTP 500.
    public var alwaysFail: Bool
    /// Hold every form POST this many seconds before answering (0: off), to outlast client timeouts.
    public var hangSeconds: Int
    /// Cut every page off halfway.
    public var truncatePages: Bool
    /// Serve every carrier's pages in a changed layout (``ChangedLayout``), as if the carriers had redesigned them.
    public var changedLayout: Bool

    public init(
        latencyMilliseconds: Int = 0, errorRate: Double = 0, alwaysFail: Bool = false, hangSeconds: Int = 0,
        truncatePages: Bool = false, changedLayout: Bool = false
    ) {
        self.latencyMilliseconds = latencyMilliseconds
        self.errorRate = errorRate
        self.alwaysFail = alwaysFail
        self.hangSeconds = hangSeconds
        self.truncatePages = truncatePages
        self.changedLayout = changedLayout
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case latencyMilliseconds = "latency_ms"
        case errorRate = "error_rate"
        case alwaysFail = "always_fail"
        case hangSeconds = "hang_seconds"
        case truncatePages = "truncate_pages"
        case changedLayout = "changed_layout"
    }

    /// Problems with the values, in one line, or `nil` when all are in range.
    public var problem: String? {
        if latencyMilliseconds < 0 || latencyMilliseconds > 600_000 {
            return "latency_ms \(latencyMilliseconds) is out of range; expected 0 to 600000"
        }
        if !(0...1).contains(errorRate) { return "error_rate \(errorRate) is out of range; expected 0 to 1" }
        if hangSeconds < 0 || hangSeconds > 3600 {
            return "hang_seconds \(hangSeconds) is out of range; expected 0 to 3600"
        }
        return nil
    }
}

/// A partial update of ``SimulatorFaults``: the admin endpoint's request body.
struct SimulatorFaultsUpdate: Decodable {
    var latencyMilliseconds: Int?
    var errorRate: Double?
    var alwaysFail: Bool?
    var hangSeconds: Int?
    var truncatePages: Bool?
    var changedLayout: Bool?

    typealias CodingKeys = SimulatorFaults.CodingKeys

    func applied(to faults: SimulatorFaults) -> SimulatorFaults {
        var updated = faults
        if let latencyMilliseconds { updated.latencyMilliseconds = latencyMilliseconds }
        if let errorRate { updated.errorRate = errorRate }
        if let alwaysFail { updated.alwaysFail = alwaysFail }
        if let hangSeconds { updated.hangSeconds = hangSeconds }
        if let truncatePages { updated.truncatePages = truncatePages }
        if let changedLayout { updated.changedLayout = changedLayout }
        return updated
    }
}
