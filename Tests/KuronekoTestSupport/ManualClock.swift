import Foundation
import Kuroneko

/// A clock that moves only when the test says so; sleepers wake when it passes their deadline.
///
/// With `autoAdvance`, time is virtual instead: a sleeper moves the clock straight to its deadline, so code
/// that paces itself runs at once while every start time it records stays exact.
public final class ManualClock: TrackingClock, @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written under `lock`.
    private let lock = NSLock()
    private let start: Date
    private var elapsed: Duration = .zero
    private var sleepers: [(id: UInt64, deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
    private var sleeperWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextID: UInt64 = 0

    private let autoAdvance: Bool

    public init(start: Date = Date(timeIntervalSince1970: 1_790_000_000), autoAdvance: Bool = false) {
        self.start = start
        self.autoAdvance = autoAdvance
    }

    public var now: Date { locked { start.addingTimeInterval(elapsed / .seconds(1)) } }
    public var uptime: Duration { locked { elapsed } }

    public func sleep(until deadline: Duration) async throws {
        if autoAdvance {
            try Task.checkCancellation()
            locked { elapsed = max(elapsed, deadline) }
            return
        }
        let id: UInt64 = locked {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let watchersToWake: [CheckedContinuation<Void, Never>]? = locked {
                    if deadline <= elapsed || Task.isCancelled {
                        return nil
                    }
                    sleepers.append((id, deadline, continuation))
                    return takeSatisfiedWatchers()
                }
                guard let watchersToWake else {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                    return
                }
                watchersToWake.forEach { $0.resume() }
            }
        } onCancel: {
            let cancelled = locked { () -> CheckedContinuation<Void, any Error>? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks are asleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = locked {
                if sleepers.count >= count { return true }
                sleeperWatchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        let satisfied = sleeperWatchers.filter { $0.count <= sleepers.count }
        sleeperWatchers.removeAll { $0.count <= sleepers.count }
        return satisfied.map(\.continuation)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
