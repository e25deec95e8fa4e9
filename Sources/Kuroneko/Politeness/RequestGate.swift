/// Holds upstream requests to the politeness limits: at most `maxConcurrent` at once, and request starts at
/// least `minimumInterval` apart. Waiters are served first come, first served.
actor RequestGate {
    private let maxConcurrent: Int
    private let minimumInterval: Duration
    private let clock: any TrackingClock
    private var running = 0
    private var lastStart: Duration?
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiterID: UInt64 = 0

    init(maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.minimumInterval = max(.zero, minimumInterval)
        self.clock = clock
    }

    /// Waits for a slot and for the request's turn to start; pair every successful call with ``release()``.
    /// - Throws: `CancellationError` if the task is cancelled while waiting; no slot is then held.
    func acquire() async throws {
        if running < maxConcurrent {
            running += 1
        } else {
            try await waitForHandOver()
        }
        let now = clock.uptime
        let start = lastStart.map { max(now, $0 + minimumInterval) } ?? now
        lastStart = start
        guard start > now else { return }
        do {
            try await clock.sleep(until: start)
        } catch {
            release()
            throw error
        }
    }

    /// Gives the slot to the longest waiter, or frees it.
    func release() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Suspends until ``release()`` hands this task a slot; the slot stays counted in `running`.
    private func waitForHandOver() async throws {
        let id = nextWaiterID
        nextWaiterID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
