import Kuroneko

/// Turns many concurrent single lookups into few upstream POSTs: lookups of a number already asked for
/// share that fetch, and each POST is filled (up to ten numbers) only at the moment it may leave.
///
/// A POST may leave when fewer than the client's `maxConcurrentRequests` are in flight, at least the client's
/// `minimumRequestInterval` after the previous one, and either ten numbers are waiting or the oldest has
/// waited `window`. Composing the batch then, not earlier, packs every number that arrived while the
/// previous POSTs were under way; the client's own politeness gate therefore rarely has to hold a request.
actor ShipmentFetcher {
    private let client: TrackingClient
    private let clock: any TrackingClock
    private let window: Duration
    private let metrics: Metrics
    private let maxInFlight: Int
    private let interval: Duration
    /// Everyone waiting for a number, whether its POST has left or not.
    private var waiters: [TrackingNumber: [CheckedContinuation<Shipment, any Error>]] = [:]
    /// Numbers not yet in a POST, with when they arrived, oldest first.
    private var queued: [(number: TrackingNumber, arrivedAt: Duration)] = []
    private var inFlight = 0
    private var lastDispatch: Duration?
    private var dispatching = false
    /// The dispatcher's wait for a batch to be due, cancelled to wake it early when a batch fills.
    private var pause: Task<Void, any Error>?
    /// The dispatcher's wait for a POST to finish while every slot is busy.
    private var slotFreed: CheckedContinuation<Void, Never>?

    init(client: TrackingClient, clock: any TrackingClock, window: Duration, metrics: Metrics) {
        self.client = client
        self.clock = clock
        self.window = window
        self.metrics = metrics
        maxInFlight = max(1, client.configuration.maxConcurrentRequests)
        interval = client.configuration.minimumRequestInterval
    }

    /// The shipment for a number, fetched once however many ask at the same time.
    func shipment(for number: TrackingNumber) async throws -> Shipment {
        try await withCheckedThrowingContinuation { continuation in
            if waiters[number] != nil {
                waiters[number, default: []].append(continuation)
                return
            }
            waiters[number] = [continuation]
            queued.append((number, clock.uptime))
            if !dispatching {
                dispatching = true
                Task { await dispatch() }
            } else if queued.count >= BatchPlan.maximumBatchSize {
                pause?.cancel()
            }
        }
    }

    private func dispatch() async {
        while !queued.isEmpty {
            let now = clock.uptime
            let full = queued.count >= BatchPlan.maximumBatchSize
            var readyAt = full ? now : queued[0].arrivedAt + window
            if let lastDispatch { readyAt = max(readyAt, lastDispatch + interval) }
            if inFlight >= maxInFlight {
                await withCheckedContinuation { slotFreed = $0 }
                continue
            }
            if readyAt > now {
                let wait = Task { [clock] in try await clock.sleep(until: readyAt) }
                pause = wait
                _ = await wait.result
                pause = nil
                continue
            }
            let batch = queued.prefix(BatchPlan.maximumBatchSize).map(\.number)
            queued.removeFirst(batch.count)
            inFlight += 1
            lastDispatch = now
            Task { await send(batch) }
        }
        dispatching = false
    }

    private func send(_ batch: [TrackingNumber]) async {
        let started = clock.uptime
        let result: Result<[Shipment], any Error>
        do {
            result = .success(try await client.track(batch))
        } catch {
            result = .failure(error)
        }
        let failed = if case .failure = result { true } else { false }
        metrics.recordUpstream(batchSize: batch.count, seconds: (clock.uptime - started) / .seconds(1), failed: failed)
        inFlight -= 1
        slotFreed?.resume()
        slotFreed = nil
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
