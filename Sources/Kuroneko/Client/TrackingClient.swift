import Foundation

/// Looks up Yamato tracking numbers: batches them, posts them politely, retries what may pass, and parses
/// the answers into shipments.
///
/// One client holds one politeness budget: share it between every caller that should count together.
public struct TrackingClient: Sendable {
    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let clock: any TrackingClock
    private let gate: RequestGate
    private let parser = TrackingPageParser()
    private let randomFraction: @Sendable () -> Double

    /// - Parameters:
    ///   - transport: default ``URLSessionTransport``.
    ///   - clock: default ``SystemClock``; drives pacing, backoff and the reference time for dates.
    ///   - randomFraction: the source of backoff jitter, a number in [0, 1).
    public init(
        configuration: Configuration = Configuration(),
        transport: any HTTPTransport = URLSessionTransport(),
        clock: any TrackingClock = SystemClock(),
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.randomFraction = randomFraction
        gate = RequestGate(
            maxConcurrent: configuration.maxConcurrentRequests,
            minimumInterval: configuration.minimumRequestInterval,
            clock: clock)
    }

    /// Looks up one number.
    /// - Throws: ``TrackingError``, or `CancellationError` when the task is cancelled.
    public func track(_ number: TrackingNumber) async throws -> Shipment {
        let shipments = try await fetch([number])
        return shipments[0]
    }

    /// Looks up many numbers, ten per upstream request, each distinct number once.
    /// - Returns: one shipment per number given, in the same order.
    /// - Throws: ``TrackingError`` for the first batch that failed (the others are cancelled), or
    ///   `CancellationError` when the task is cancelled.
    public func track(_ numbers: [TrackingNumber]) async throws -> [Shipment] {
        let plan = BatchPlan(numbers)
        let answers = try await withThrowingTaskGroup(of: (Int, [Shipment]).self) { group in
            for (index, batch) in plan.batches.enumerated() {
                group.addTask { (index, try await fetch(batch)) }
            }
            var answers = [[Shipment]](repeating: [], count: plan.batches.count)
            for try await (index, shipments) in group {
                answers[index] = shipments
            }
            return answers
        }
        return plan.assemble(answers)
    }

    /// One batch: attempts, with backoff between them, until an answer or a failure that will not pass.
    private func fetch(_ batch: [TrackingNumber]) async throws -> [Shipment] {
        let request = UpstreamRequest(
            url: configuration.endpoint,
            method: "POST",
            headers: [
                "Content-Type": TrackingForm.contentType,
                "User-Agent": configuration.userAgent,
                "Accept": "text/html",
            ],
            body: TrackingForm.body(for: batch),
            timeout: configuration.requestTimeout)
        var retry = 0
        while true {
            try Task.checkCancellation()
            switch await attempt(request, batch: batch) {
            case .success(let shipments):
                return shipments
            case .failure(let failure):
                if failure.isCancellation { throw CancellationError() }
                guard failure.mayPass, retry < configuration.retry.maxRetries else {
                    throw failure.error(attempts: retry + 1, endpoint: configuration.endpoint)
                }
                retry += 1
                let delay = configuration.retry.delay(beforeRetry: retry, randomFraction: randomFraction())
                try await clock.sleep(until: clock.uptime + delay)
            }
        }
    }

    private func attempt(_ request: UpstreamRequest, batch: [TrackingNumber]) async -> Result<
        [Shipment], AttemptFailure
    > {
        do {
            try await gate.acquire()
        } catch {
            return .failure(.cancelled)
        }
        let outcome: Result<UpstreamResponse, any Error>
        do {
            outcome = .success(try await transport.send(request))
        } catch {
            outcome = .failure(error)
        }
        await gate.release()
        switch outcome {
        case .failure(is CancellationError):
            return .failure(.cancelled)
        case .failure(let error as TransportError):
            return .failure(.transport(error))
        case .failure(let error):
            return .failure(.transport(TransportError(.other, "\(error)")))
        case .success(let response) where !(200...299).contains(response.status):
            return .failure(.httpStatus(response.status))
        case .success(let response):
            do {
                return .success(
                    try parser.parse(
                        response.body, charset: response.declaredCharset, expecting: batch, now: clock.now))
            } catch {
                return .failure(.page(error))
            }
        }
    }
}

/// Why one attempt failed, and whether trying again could help.
private enum AttemptFailure: Error {
    case cancelled
    case transport(TransportError)
    case httpStatus(Int)
    case page(TrackingPageError)

    var isCancellation: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// Timeouts, broken connections and server errors may pass; a 4xx or a refused page would come back the same.
    var mayPass: Bool {
        switch self {
        case .cancelled, .page: false
        case .transport(let error): error.kind == .timeout || error.kind == .connection
        case .httpStatus(let status): (500...599).contains(status)
        }
    }

    func error(attempts: Int, endpoint: URL) -> TrackingError {
        let tries = attempts == 1 ? "" : " (after \(attempts) attempts)"
        switch self {
        case .cancelled:
            return TrackingError(.transport, "the lookup was cancelled")
        case .transport(let error):
            let code: TrackingError.Code =
                switch error.kind {
                case .timeout: .timeout
                case .connection: .connection
                case .other: .transport
                }
            return TrackingError(code, error.message + tries)
        case .httpStatus(let status):
            return TrackingError(.httpStatus, "\(endpoint) answered HTTP \(status)\(tries)", httpStatus: status)
        case .page(let error):
            return TrackingError(
                .page, "\(endpoint) answered a page that cannot be read: \(error.message)",
                pageError: error)
        }
    }
}
