import Foundation
import Kuroneko

/// A clock that moves only when the test says so (``advance(by:)``); sleepers wake when it passes their
/// deadline, and a test can wait for the code under test to set a timer (``waitForSleeper(until:)``).
public final class ManualClock: TrackingClock, @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written under `lock`.
    private let lock = NSLock()
    private let start: Date
    private var elapsed: Duration = .zero
    private var sleepers: [(id: UInt64, deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
    private var sleeperWatchers: [(satisfied: ([Duration]) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
        []
    private var nextID: UInt64 = 0

    public init(start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        self.start = start
    }

    public var now: Date { locked { start.addingTimeInterval(elapsed / .seconds(1)) } }
    public var uptime: Duration { locked { elapsed } }

    public func sleep(until deadline: Duration) async throws {
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

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let woken: [CheckedContinuation<Void, any Error>] = locked {
            elapsed += duration
            let due = sleepers.filter { $0.deadline <= elapsed }
            sleepers.removeAll { $0.deadline <= elapsed }
            return due.map(\.continuation)
        }
        woken.forEach { $0.resume() }
    }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { locked { sleepers.count } }

    /// Returns once at least `count` tasks are asleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitForSleepers { $0.count >= count }
    }

    /// Returns once some task sleeps until exactly `deadline` (a timer the code under test has set).
    public func waitForSleeper(until deadline: Duration) async {
        await waitForSleepers { $0.contains(deadline) }
    }

    private func waitForSleepers(where satisfied: @escaping ([Duration]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = locked {
                if satisfied(sleepers.map(\.deadline)) { return true }
                sleeperWatchers.append((satisfied, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        let deadlines = sleepers.map(\.deadline)
        let satisfied = sleeperWatchers.filter { $0.satisfied(deadlines) }
        sleeperWatchers.removeAll { $0.satisfied(deadlines) }
        return satisfied.map(\.continuation)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
