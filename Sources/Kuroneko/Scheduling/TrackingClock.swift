import Foundation

/// The time source of everything that waits or dates: pacing, backoff, and the reference time for
/// year-less dates. Tests substitute a manual clock.
public protocol TrackingClock: Sendable {
    /// Wall-clock time, the reference the page's year-less dates are resolved against.
    var now: Date { get }
    /// Monotonic time since an arbitrary origin, for intervals that must not jump with the wall clock.
    var uptime: Duration { get }
    /// Suspends until ``uptime`` reaches `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Duration) async throws
}

/// The real clock: `Date()` for wall time and `ContinuousClock` for intervals.
public struct SystemClock: TrackingClock {
    private let origin: ContinuousClock.Instant

    public init() {
        origin = ContinuousClock.now
    }

    public var now: Date { Date() }

    public var uptime: Duration { origin.duration(to: ContinuousClock.now) }

    public func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: origin.advanced(by: deadline), tolerance: nil)
    }
}
