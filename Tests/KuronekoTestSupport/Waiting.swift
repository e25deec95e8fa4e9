import Foundation
import Synchronization

/// Suspends until the task is cancelled: an upstream that never answers, without a timer standing in for it.
public func suspendUntilCancelled() async {
    let parked = Parked()
    await withTaskCancellationHandler {
        await withCheckedContinuation { parked.park($0) }
    } onCancel: {
        parked.release()
    }
}

/// Runs blocking work (poll loops, blocking sockets) on a thread of its own, so it never holds one of the
/// few threads every test's tasks share.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// One continuation, resumed once: when released, or at once if released before it was parked.
private final class Parked: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, released: Bool)>((nil, false))

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            if state.released { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func release() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume()
    }
}

/// Reads `condition` every 50 ms until it holds or `timeout` passes: waiting for something another process
/// does (a server's state, a receiver's request), with a bound that catches a hang, not a slow machine (the
/// condition is read once more at the deadline, so a task that was kept waiting for a thread past it is not
/// failed for that). - Returns: whether it held in time.
public func eventually(
    within timeout: Duration = .seconds(120), _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
