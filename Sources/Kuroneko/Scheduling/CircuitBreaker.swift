/// When to stop asking an upstream that keeps failing.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// Failed POSTs in a row that open the circuit.
    public var failureThreshold: Int
    /// How long the circuit stays open before one probe POST is let through.
    public var coolDown: Duration

    /// - Parameters: defaults 5 failed POSTs, 30 s.
    public init(failureThreshold: Int = 5, coolDown: Duration = .seconds(30)) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = max(.zero, coolDown)
    }
}

/// Whether POSTs may go upstream.
public enum CircuitState: String, Sendable, Hashable {
    /// Normal operation.
    case closed
    /// The cool-down has passed: one probe POST may go; its outcome closes or reopens the circuit.
    case halfOpen = "half_open"
    /// Too many POSTs failed in a row: nothing is sent until the cool-down has passed.
    case open

    /// The value of the `kuroneko_upstream_circuit_state` gauge: 0 closed, 1 half-open, 2 open.
    public var gaugeValue: Int {
        switch self {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}

/// The circuit breaker, counted per POST: a value driven by the scheduler's state machine.
struct CircuitBreaker: Sendable {
    private enum Phase {
        case closed(failures: Int)
        case open(until: Duration)
        case halfOpen(probing: Bool)
    }

    let policy: CircuitBreakerPolicy
    private var phase = Phase.closed(failures: 0)

    init(policy: CircuitBreakerPolicy) {
        self.policy = policy
    }

    var state: CircuitState {
        switch phase {
        case .closed: .closed
        case .open: .open
        case .halfOpen: .halfOpen
        }
    }

    /// When an open circuit turns half-open; `nil` unless open.
    var openUntil: Duration? {
        if case .open(let until) = phase { return until }
        return nil
    }

    /// How long until an open circuit lets a probe through; `nil` unless open.
    func retryAfter(at now: Duration) -> Duration? {
        openUntil.map { max(.zero, $0 - now) }
    }

    /// Whether a POST may start now: any while closed, one probe while half-open.
    var permitsStart: Bool {
        switch phase {
        case .closed: true
        case .open: false
        case .halfOpen(let probing): !probing
        }
    }

    /// An open circuit whose cool-down has passed becomes half-open, without waiting for traffic.
    mutating func advance(to now: Duration) {
        if case .open(let until) = phase, now >= until {
            phase = .halfOpen(probing: false)
        }
    }

    mutating func postStarted() {
        if case .halfOpen = phase { phase = .halfOpen(probing: true) }
    }

    /// The probe was called off before it answered (nobody waited for it any more).
    mutating func probeAbandoned() {
        if case .halfOpen = phase { phase = .halfOpen(probing: false) }
    }

    mutating func postSucceeded() {
        phase = .closed(failures: 0)
    }

    /// - Returns: whether this failure opened the circuit.
    mutating func postFailed(at now: Duration) -> Bool {
        switch phase {
        case .closed(let failures) where failures + 1 < policy.failureThreshold:
            phase = .closed(failures: failures + 1)
            return false
        case .closed, .halfOpen:
            phase = .open(until: now + policy.coolDown)
            return true
        case .open:
            return false
        }
    }
}
