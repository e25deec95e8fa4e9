import Foundation

/// The simulator's time: it starts where it is set and runs `speed` times as fast as real time.
///
/// `@unchecked Sendable`: all state is guarded by `lock`.
public final class SimulatorClock: @unchecked Sendable {
    private let lock = NSLock()
    private var realAnchor: Date
    private var simulatedAnchor: Date
    private var rate: Double
    private let realNow: @Sendable () -> Date

    /// - Parameters:
    ///   - start: the simulated time now (default: the real time).
    ///   - speed: simulated seconds per real second (default 1).
    ///   - realNow: the real clock, injectable for tests.
    public init(start: Date? = nil, speed: Double = 1, realNow: @escaping @Sendable () -> Date = Date.init) {
        self.realNow = realNow
        realAnchor = realNow()
        simulatedAnchor = start ?? realAnchor
        rate = speed
    }

    public var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return simulatedAnchor.addingTimeInterval(realNow().timeIntervalSince(realAnchor) * rate)
    }

    public var speed: Double {
        lock.lock()
        defer { lock.unlock() }
        return rate
    }

    /// Moves the clock and/or changes its speed; what is not given stays as it is.
    public func set(now: Date?, speed: Double?) {
        lock.lock()
        defer { lock.unlock() }
        let real = realNow()
        let current = simulatedAnchor.addingTimeInterval(real.timeIntervalSince(realAnchor) * rate)
        realAnchor = real
        simulatedAnchor = now ?? current
        if let speed { rate = speed }
    }
}
