import Kuroneko
import Synchronization

/// Wakes a service that waits for work: `ring()` after queueing some, `nap(for:clock:)` where the service
/// would sleep a tick. A ring while nobody naps is kept, so the next nap ends at once; a nap ends at its tick
/// however often or seldom the bell rings (work queued by another server is found then).
public final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.rung = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when the bell rings, `tick` has passed on `clock`, or the task is cancelled.
    public func nap(for tick: Duration, clock: any TrackingClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: clock.uptime + tick) }
            group.addTask { await self.waitForRing() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
