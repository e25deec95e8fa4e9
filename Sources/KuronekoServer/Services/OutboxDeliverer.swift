import Kuroneko

/// One attempt claimed from an outbox: the next message of one destination, ready to send.
public struct OutboxAttempt: Sendable {
    public let run: @Sendable () async -> Void

    public init(run: @escaping @Sendable () async -> Void) {
        self.run = run
    }
}

/// An outbox the deliverer serves: webhooks, or notification channels. A lane claims at most `limit` due
/// messages, the oldest of each destination that has no attempt in flight (so each destination's messages go
/// in order), and marks those destinations busy until their attempts end.
public protocol OutboxLane: Sendable {
    func claimAttempts(limit: Int) async -> [OutboxAttempt]
}

/// Every outbox's deliverer: at most `concurrency` attempts in flight across all destinations of all
/// lanes; each attempt runs on its own and nothing waits for another, so a destination that hangs or trickles
/// delays only its own queue (each attempt has its own deadline). Claims again whenever an attempt ends, the
/// doorbell rings (something was queued) or `tick` passes (something queued by another server came due).
public final class OutboxDeliverer: Sendable {
    public static let defaultConcurrency = 16

    private let lanes: [any OutboxLane]
    private let clock: any TrackingClock
    public let concurrency: Int

    public init(lanes: [any OutboxLane], clock: any TrackingClock, concurrency: Int = OutboxDeliverer.defaultConcurrency)
    {
        self.lanes = lanes
        self.clock = clock
        self.concurrency = max(1, concurrency)
    }

    /// Delivers until the task is cancelled, then waits for the attempts in flight (each within its deadline).
    public func run(tick: Duration = .seconds(1), doorbell: Doorbell? = nil) async {
        // Each child says whether it was an attempt (true) or the wait for more work (false).
        await withTaskGroup(of: Bool.self) { group in
            var running = 0
            var waiting = false
            var first = 0
            while !Task.isCancelled {
                var claimed = 0
                // Lanes take turns at going first, so one busy outbox cannot take every slot each time.
                for offset in lanes.indices {
                    let free = concurrency - running
                    guard free > 0 else { break }
                    let attempts = await lanes[(first + offset) % lanes.count].claimAttempts(limit: free)
                    for attempt in attempts {
                        group.addTask {
                            await attempt.run()
                            return true
                        }
                    }
                    running += attempts.count
                    claimed += attempts.count
                }
                first = (first + 1) % max(1, lanes.count)
                if claimed > 0, running < concurrency { continue }
                if !waiting {
                    waiting = true
                    let clock = self.clock
                    group.addTask {
                        if let doorbell {
                            await doorbell.nap(for: tick, clock: clock)
                        } else {
                            try? await clock.sleep(until: clock.uptime + tick)
                        }
                        return false
                    }
                }
                switch await group.next() {
                case true?: running -= 1
                case false?: waiting = false
                case nil: break
                }
            }
        }
    }
}
