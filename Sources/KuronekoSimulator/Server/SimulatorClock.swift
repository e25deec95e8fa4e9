import Foundation
import Synchronization

/// The simulator's time: it starts where it is set and runs `speed` times as fast as real time.
public final class SimulatorClock: Sendable {
    private struct Anchor {
        var real: Date
        var simulated: Date
        var rate: Double

        func time(at real: Date) -> Date { simulated.addingTimeInterval(real.timeIntervalSince(self.real) * rate) }
    }

    private let anchor: Mutex<Anchor>
    private let realNow: @Sendable () -> Date

    /// - Parameters:
    ///   - start: the simulated time now (default: the real time).
    ///   - speed: simulated seconds per real second (default 1).
    ///   - realNow: the real clock, injectable for tests.
    public init(start: Date? = nil, speed: Double = 1, realNow: @escaping @Sendable () -> Date = Date.init) {
        self.realNow = realNow
        let real = realNow()
        anchor = Mutex(Anchor(real: real, simulated: start ?? real, rate: speed))
    }

    public var now: Date {
        anchor.withLock { $0.time(at: realNow()) }
    }

    public var speed: Double {
        anchor.withLock { $0.rate }
    }

    /// Moves the clock and/or changes its speed; what is not given stays as it is.
    public func set(now: Date?, speed: Double?) {
        anchor.withLock { anchor in
            let real = realNow()
            let current = anchor.time(at: real)
            anchor.real = real
            anchor.simulated = now ?? current
            if let speed { anchor.rate = speed }
        }
    }
}
