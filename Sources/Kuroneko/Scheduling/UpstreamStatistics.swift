/// What the scheduler is doing, for metrics and readiness: queue levels, the circuit, and counters.
public struct UpstreamStatistics: Sendable, Hashable {
    /// Numbers waiting for a POST, by priority.
    public var queued: [UpstreamPriority: Int] = [:]
    /// POSTs under way.
    public var inFlight = 0
    public var circuit = CircuitState.closed
    /// What a new interactive number would wait for its answer now.
    public var estimatedWait = Duration.zero
    /// Lookups answered at once with `overloaded` instead of being queued.
    public var shed = 0
    /// Waiters whose deadline passed before their answer.
    public var expired = 0
    /// Numbers dropped before they were sent (or whose POST was called off) because nobody waited any more.
    public var cancelledNumbers = 0
    /// Lookups refused at once because the circuit was open.
    public var rejectedWhileOpen = 0
    /// POSTs started so far.
    public var started = 0
    /// The shortest time between two POSTs going out so far (measured just before the transport is called);
    /// `nil` before the second.
    public var shortestStartGap: Duration?

    public init() {}
}

/// One POST attempt as it ended, for metrics.
public struct UpstreamPostReport: Sendable, Hashable {
    public let numbers: Int
    public let seconds: Double
    public let failed: Bool
    /// The numbers the attempt asked about.
    public let asked: [TrackingNumber]
    /// The page the parser refused, when that is why the attempt failed.
    public let refusedPage: RefusedPage?
    /// The HTTP requests the attempt sent (a form's state or Japan Post's detail pages besides the first).
    public let requests: Int

    public init(
        numbers: Int, seconds: Double, failed: Bool, asked: [TrackingNumber] = [], refusedPage: RefusedPage? = nil,
        requests: Int = 1
    ) {
        self.requests = requests
        self.numbers = numbers
        self.seconds = seconds
        self.failed = failed
        self.asked = asked
        self.refusedPage = refusedPage
    }
}
