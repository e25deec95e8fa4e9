/// The politeness budget every POST to Yamato draws on: how many may be in flight, how far apart they start.
///
/// The scheduler asks for one start at a time and gives every start back when its POST ends. The local
/// budget below holds one process to the limits; a budget shared by several server instances (through a
/// database) can take its place without touching the scheduler's policy.
public protocol UpstreamBudget: Sendable {
    /// Returns when one more POST may start, and counts it as started.
    /// - Throws: `CancellationError` when the task is cancelled first; nothing is then counted.
    func acquire() async throws
    /// A POST granted by ``acquire()`` is about to go on the wire now: the next start is counted from here,
    /// so a POST whose task ran late does not leave the following one less than the interval behind.
    func started() async
    /// A POST started by ``acquire()`` has ended (or was never sent).
    func release() async
    /// One more request of a lookup already started (Japan Post's detail page after its list, Sagawa's form
    /// before its POST): returns once it may go, at least the interval after the last start, and counts it
    /// as started. The lookup keeps its one place among the requests in flight.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func paced() async throws
}

extension UpstreamBudget {
    /// A budget whose ``started()`` is itself the gate that spaces requests (the shared one) paces with it.
    public func paced() async throws {
        try Task.checkCancellation()
        await started()
    }
}

/// One process's budget: at most `maxConcurrent` POSTs in flight, starts at least `minimumInterval` apart.
public actor LocalUpstreamBudget: UpstreamBudget {
    public nonisolated let maxConcurrent: Int
    public nonisolated let minimumInterval: Duration
    private let clock: any TrackingClock
    private var inFlight = 0
    private var lastStart: Duration?
    /// Callers waiting for a POST to end, first come first served.
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    public init(maxConcurrent: Int, minimumInterval: Duration, clock: any TrackingClock) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.minimumInterval = max(.zero, minimumInterval)
        self.clock = clock
    }

    public func acquire() async throws {
        if inFlight < maxConcurrent {
            inFlight += 1
        } else {
            try await waitForRelease()
        }
        // The previous start may move later while this one sleeps (``started()``): look again after waking.
        while true {
            let now = clock.uptime
            let start = lastStart.map { max(now, $0 + minimumInterval) } ?? now
            guard start > now else {
                lastStart = start
                return
            }
            do {
                try await clock.sleep(until: start)
            } catch {
                await release()
                throw error
            }
        }
    }

    public func started() {
        let now = clock.uptime
        lastStart = max(lastStart ?? now, now)
    }

    public func paced() async throws {
        // The last start may move later while this one sleeps: look again after waking.
        while true {
            let now = clock.uptime
            let start = lastStart.map { max(now, $0 + minimumInterval) } ?? now
            guard start > now else {
                lastStart = start
                return
            }
            try await clock.sleep(until: start)
        }
    }

    public func release() async {
        if waiting.isEmpty {
            inFlight = max(0, inFlight - 1)
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }

    /// Suspends until ``release()`` hands over its place; the place stays counted in `inFlight`.
    private func waitForRelease() async throws {
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiting(id) }
        }
    }

    private func cancelWaiting(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
