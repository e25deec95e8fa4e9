import Kuroneko

/// Stops calling an upstream that keeps failing: after `failureThreshold` failures in a row it opens for
/// `coolDown`, then lets one probe through; a success closes it, a failure opens it again.
///
/// A value type: the owner (``ShipmentService``) keeps it under its own lock.
struct CircuitBreaker: Sendable {
    let failureThreshold: Int
    let coolDown: Duration
    private var consecutiveFailures = 0
    private var openUntil: Duration?
    private var probing = false

    init(failureThreshold: Int, coolDown: Duration) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = coolDown
    }

    enum Permission: Equatable {
        case allowed
        /// Open: wait this long before asking again.
        case rejected(retryAfter: Duration)
    }

    /// Whether a call may go upstream at `now` (monotonic time).
    mutating func permission(at now: Duration) -> Permission {
        guard let openUntil else { return .allowed }
        if now < openUntil { return .rejected(retryAfter: openUntil - now) }
        if probing { return .rejected(retryAfter: coolDown) }
        probing = true
        return .allowed
    }

    mutating func recordSuccess() {
        consecutiveFailures = 0
        openUntil = nil
        probing = false
    }

    mutating func recordFailure(at now: Duration) {
        consecutiveFailures += 1
        if probing || consecutiveFailures >= failureThreshold {
            openUntil = now + coolDown
            probing = false
        }
    }

    var isOpen: Bool { openUntil != nil }
}
