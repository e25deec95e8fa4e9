import Kuroneko

/// Turns many concurrent single lookups into few upstream POSTs: lookups of a number already on its way
/// share that fetch, and lookups that arrive within `window` are packed ten to a POST.
///
/// Politeness is the client's: every POST goes through the one ``TrackingClient`` the server shares.
actor ShipmentFetcher {
    private let client: TrackingClient
    private let clock: any TrackingClock
    private let window: Duration
    /// Everyone waiting for a number, whether its POST has left or not.
    private var waiters: [TrackingNumber: [CheckedContinuation<Shipment, any Error>]] = [:]
    /// Numbers not yet in a POST, in arrival order.
    private var queued: [TrackingNumber] = []
    private var flushScheduled = false
    private let metrics: Metrics

    init(client: TrackingClient, clock: any TrackingClock, window: Duration, metrics: Metrics) {
        self.client = client
        self.clock = clock
        self.window = window
        self.metrics = metrics
    }

    /// The shipment for a number, fetched once however many ask at the same time.
    func shipment(for number: TrackingNumber) async throws -> Shipment {
        try await withCheckedThrowingContinuation { continuation in
            if waiters[number] != nil {
                waiters[number, default: []].append(continuation)
                return
            }
            waiters[number] = [continuation]
            queued.append(number)
            if queued.count >= BatchPlan.maximumBatchSize {
                sendFullBatches()
            } else if !flushScheduled {
                flushScheduled = true
                let deadline = clock.uptime + window
                Task { await self.flush(after: deadline) }
            }
        }
    }

    private func flush(after deadline: Duration) async {
        try? await clock.sleep(until: deadline)
        flushScheduled = false
        while !queued.isEmpty {
            send(Array(queued.prefix(BatchPlan.maximumBatchSize)))
        }
    }

    private func sendFullBatches() {
        while queued.count >= BatchPlan.maximumBatchSize {
            send(Array(queued.prefix(BatchPlan.maximumBatchSize)))
        }
    }

    private func send(_ batch: [TrackingNumber]) {
        queued.removeFirst(batch.count)
        Task {
            let started = clock.uptime
            let result: Result<[Shipment], any Error>
            do {
                result = .success(try await client.track(batch))
            } catch {
                result = .failure(error)
            }
            let failed = if case .failure = result { true } else { false }
            metrics.recordUpstream(
                batchSize: batch.count, seconds: (clock.uptime - started) / .seconds(1), failed: failed)
            deliver(batch, result)
        }
    }

    private func deliver(_ batch: [TrackingNumber], _ result: Result<[Shipment], any Error>) {
        for (index, number) in batch.enumerated() {
            let continuations = waiters.removeValue(forKey: number) ?? []
            switch result {
            case .success(let shipments):
                continuations.forEach { $0.resume(returning: shipments[index]) }
            case .failure(let error):
                continuations.forEach { $0.resume(throwing: error) }
            }
        }
    }
}
