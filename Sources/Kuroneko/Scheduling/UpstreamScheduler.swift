import Foundation
import Synchronization

/// The one way to Yamato: every lookup of the command line, the library and the server passes through here.
///
/// A thin actor around ``StateMachine``, which holds all the policy (coalescing, priorities, deadlines,
/// shedding, retries, the circuit breaker). The actor feeds it events (a number wanted, a waiter gone, a
/// slot granted by the ``UpstreamBudget``, a POST ended, time passed) and performs the actions it returns:
/// send a POST through the ``HTTPTransport``, answer waiters, set its one timer.
public actor UpstreamScheduler {
    public let configuration: TrackingClient.Configuration
    private let transport: any HTTPTransport
    private let clock: any TrackingClock
    private let budget: any UpstreamBudget
    private let randomFraction: @Sendable () -> Double
    private let observer: (@Sendable (UpstreamPostReport) -> Void)?
    private let site: any CarrierSite
    private var machine: StateMachine
    private var waits: [StateMachine.WaiterID: Wait] = [:]
    private var postTasks: [StateMachine.PostID: Task<Void, Never>] = [:]
    private var nextWaiterID: StateMachine.WaiterID = 0
    private var timer: Task<Void, Never>?
    private var timerDeadline: Duration?
    private let published = Mutex(UpstreamStatistics())
    /// When POSTs actually went out: the last one, and the shortest gap between two.
    private let starts = Mutex<(last: Duration?, shortestGap: Duration?)>((nil, nil))
    private var statisticsWatchers:
        [(predicate: @Sendable (UpstreamStatistics) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// - Parameters:
    ///   - budget: default a ``LocalUpstreamBudget`` with the configuration's limits.
    ///   - randomFraction: the source of backoff jitter, a number in [0, 1).
    ///   - observer: told of every POST attempt as it ends (for metrics).
    public init(
        configuration: TrackingClient.Configuration, transport: any HTTPTransport, clock: any TrackingClock,
        budget: (any UpstreamBudget)? = nil,
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observer: (@Sendable (UpstreamPostReport) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.budget =
            budget
            ?? LocalUpstreamBudget(
                maxConcurrent: configuration.maxConcurrentRequests,
                minimumInterval: configuration.minimumRequestInterval, clock: clock)
        self.randomFraction = randomFraction
        self.observer = observer
        let site = configuration.carrier.definition.site(configuration.endpoint)
        self.site = site
        var policy = StateMachine.Policy(
                batchWindow: configuration.batchWindow, minimumInterval: configuration.minimumRequestInterval,
                maxConcurrent: configuration.maxConcurrentRequests, requestTimeout: configuration.requestTimeout,
                retry: configuration.retry, breaker: configuration.circuitBreaker,
                queueCapacity: configuration.queueCapacity)
        policy.batchSize = site.batchSize
        policy.carrierName = configuration.carrier.englishName
        machine = StateMachine(policy: policy)
    }

    /// The shipment for a number, fetched once however many ask for it at the same time.
    /// - Parameters:
    ///   - priority: where the number goes in the queue.
    ///   - timeout: how long the caller will wait, queue included; `nil` waits as long as it takes.
    /// - Throws: ``TrackingError`` (among others `overloaded`, `circuit_open` and `deadline_exceeded`, with
    ///   `retryAfter` where asking again later may help), or `CancellationError` when the task is cancelled.
    public func shipment(
        for number: TrackingNumber, priority: UpstreamPriority = .interactive, timeout: Duration? = nil
    ) async throws -> Shipment {
        let ticket = want([number], priority: priority, timeout: timeout, flush: false)[0]
        return try await result(of: ticket)
    }

    /// Wants several numbers at once, as one caller that will want nothing more for now: they leave
    /// without waiting for the batch window. Each ticket's answer comes from ``result(of:)``; a ticket
    /// whose answer is no longer wanted must be given back with ``abandon(_:)``.
    func want(_ numbers: [TrackingNumber], priority: UpstreamPriority, timeout: Duration?, flush: Bool = true)
        -> [Ticket]
    {
        let now = clock.uptime
        let deadline = timeout.map { now + $0 }
        var actions: [StateMachine.Action] = []
        var tickets: [Ticket] = []
        for number in numbers {
            nextWaiterID += 1
            waits[nextWaiterID] = .pending
            tickets.append(Ticket(id: nextWaiterID))
            actions += machine.want(number, waiter: nextWaiterID, priority: priority, deadline: deadline, now: now)
        }
        if flush { actions += machine.flush(now: now) }
        perform(actions)
        return tickets
    }

    /// The answer for a ticket of ``want(_:priority:timeout:flush:)``; cancelling the task gives it back.
    func result(of ticket: Ticket) async throws -> Shipment {
        if case .answered(let result)? = waits[ticket.id] {
            waits[ticket.id] = nil
            return try result.get()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Shipment, any Error>) in
                switch waits[ticket.id] {
                case .answered(let result)?:
                    waits[ticket.id] = nil
                    continuation.resume(with: result)
                case .pending? where !Task.isCancelled:
                    waits[ticket.id] = .awaited(continuation)
                default:
                    continuation.resume(throwing: CancellationError())
                    abandon(ticket)
                }
            }
        } onCancel: {
            Task { await self.abandon(ticket) }
        }
    }

    /// Nobody will read this ticket's answer: its waiter leaves, and a number nobody else waits for is
    /// dropped from the queue (or its POST called off).
    func abandon(_ ticket: Ticket) {
        guard let wait = waits.removeValue(forKey: ticket.id) else { return }
        switch wait {
        case .awaited(let continuation):
            continuation.resume(throwing: CancellationError())
        case .pending:
            break
        case .answered:
            return
        }
        perform(machine.waiterGone(ticket.id, now: clock.uptime))
    }

    /// A claim on one number's answer.
    struct Ticket: Sendable, Hashable {
        fileprivate let id: StateMachine.WaiterID
    }

    /// Where a waiter's answer stands.
    private enum Wait {
        /// Wanted, and nobody is suspended on it yet.
        case pending
        case awaited(CheckedContinuation<Shipment, any Error>)
        /// Answered before anybody asked for the result.
        case answered(Result<Shipment, any Error>)
    }

    private func deliver(_ result: Result<Shipment, any Error>, to waiter: StateMachine.WaiterID) {
        switch waits[waiter] {
        case .pending?:
            waits[waiter] = .answered(result)
        case .awaited(let continuation)?:
            waits[waiter] = nil
            continuation.resume(with: result)
        case .answered?, nil:
            break
        }
    }

    /// Stops sending: numbers not yet in a POST are answered `shutting_down` now, and so is every lookup
    /// from now on; POSTs under way finish and answer their waiters.
    public func shutDown() {
        perform(machine.shutDown(now: clock.uptime))
    }

    /// Queue levels, the circuit and counters, as of the last event; readable from any thread without waiting.
    public nonisolated var statistics: UpstreamStatistics {
        var statistics = published.withLock { $0 }
        statistics.shortestStartGap = starts.withLock { $0.shortestGap }
        return statistics
    }

    // MARK: Events

    private func slotGranted() {
        perform(machine.slotGranted(now: clock.uptime))
    }

    private func tick(_ deadline: Duration) {
        if timerDeadline == deadline { timerDeadline = nil }
        perform(machine.tick(now: clock.uptime))
    }

    private func finished(_ post: StateMachine.Post, _ outcome: AttemptOutcome, seconds: Double, requests: Int) {
        postTasks[post.id] = nil
        let now = clock.uptime
        switch outcome {
        case .answered(let shipments):
            observer?(
                UpstreamPostReport(
                    numbers: post.numbers.count, seconds: seconds, failed: false, asked: post.numbers, requests: requests))
            perform(machine.postSucceeded(post.id, shipments: shipments, requests: requests, now: now))
        case .failed(let failure):
            var refused: RefusedPage?
            if case .page(let page) = failure { refused = page }
            observer?(
                UpstreamPostReport(
                    numbers: post.numbers.count, seconds: seconds, failed: true, asked: post.numbers,
                    refusedPage: refused, requests: requests))
            perform(machine.postFailed(post.id, failure: failure, randomFraction: randomFraction(), now: now))
        case .cancelled:
            perform(machine.postCancelled(post.id, now: now))
        }
    }

    // MARK: Actions

    private func perform(_ actions: [StateMachine.Action]) {
        for action in actions {
            switch action {
            case .acquireSlot:
                Task { [budget] in
                    do { try await budget.acquire() } catch { return }
                    self.slotGranted()
                }
            case .releaseSlot:
                Task { [budget] in await budget.release() }
            case .send(let post):
                postTasks[post.id] = Task { await self.send(post) }
            case .cancel(let id):
                postTasks[id]?.cancel()
            case .answer(let waiters, let shipment):
                for waiter in waiters { deliver(.success(shipment), to: waiter) }
            case .fail(let waiters, let error):
                for waiter in waiters { deliver(.failure(error), to: waiter) }
            }
        }
        rescheduleTimer()
        let statistics = machine.statistics(now: clock.uptime)
        published.withLock { $0 = statistics }
        if !statisticsWatchers.isEmpty {
            let satisfied = statisticsWatchers.filter { $0.predicate(statistics) }
            statisticsWatchers.removeAll { $0.predicate(statistics) }
            satisfied.forEach { $0.continuation.resume() }
        }
    }

    /// Returns once the statistics satisfy `predicate` (checked after every event): lets a test wait for a
    /// state instead of sleeping.
    func waitForStatistics(_ predicate: @escaping @Sendable (UpstreamStatistics) -> Bool) async {
        if predicate(statistics) { return }
        await withCheckedContinuation { statisticsWatchers.append((predicate, $0)) }
    }

    private func rescheduleTimer() {
        let next = machine.nextWake()
        guard next != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = next
        guard let next else { return }
        timer = Task { [clock] in
            do { try await clock.sleep(until: next) } catch { return }
            self.tick(next)
        }
    }

    // MARK: The POST itself

    private enum AttemptOutcome {
        case answered([Shipment])
        case failed(UpstreamAttemptFailure)
        case cancelled
    }

    private nonisolated func send(_ post: StateMachine.Post) async {
        await budget.started()
        let started = clock.uptime
        starts.withLock { starts in
            if let last = starts.last { starts.shortestGap = min(starts.shortestGap ?? started - last, started - last) }
            starts.last = started
        }
        let sent = RequestCount()
        let outcome = await attempt(post, counting: sent)
        await finished(
            post, outcome, seconds: (clock.uptime - started) / .seconds(1), requests: sent.value.load(ordering: .relaxed))
    }

    /// The lookup, its HTTP requests counted in `sent`.
    private nonisolated func attempt(_ post: StateMachine.Post, counting sent: RequestCount) async
        -> AttemptOutcome
    {
        // The lookup's first request goes in the place it was granted; each further one waits its turn.
        let exchange = UpstreamExchange(userAgent: configuration.userAgent, timeout: post.timeout) { [budget] request in
            if sent.value.add(1, ordering: .relaxed).oldValue > 0 { try await budget.paced() }
            return try await self.sendWithin(post.timeout, request)
        }
        do {
            return .answered(try await site.lookup(post.numbers, through: exchange, now: clock.now))
        } catch is CancellationError {
            return .cancelled
        } catch let failure as UpstreamAttemptFailure {
            return Task.isCancelled ? .cancelled : .failed(failure)
        } catch let error as TransportError {
            return Task.isCancelled ? .cancelled : .failed(.transport(error))
        } catch {
            return Task.isCancelled ? .cancelled : .failed(.transport(TransportError(.other, "\(error)")))
        }
    }

    /// The transport's answer, or a timeout once `timeout` has passed on the scheduler's clock, whatever
    /// the transport does about its own timeout.
    private nonisolated func sendWithin(_ timeout: Duration, _ request: UpstreamRequest) async throws
        -> UpstreamResponse
    {
        let deadline = clock.uptime + timeout
        return try await withThrowingTaskGroup(of: UpstreamResponse?.self) { group in
            group.addTask { [transport] in try await transport.send(request) }
            group.addTask { [clock] in
                try await clock.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                try Task.checkCancellation()
                throw TransportError(
                    .timeout,
                    "\(request.url) did not answer within \(TrackingError.seconds(timeout)) s")
            }
            return response
        }
    }
}

/// The HTTP requests one lookup has sent so far.
private final class RequestCount: Sendable {
    let value = Atomic<Int>(0)
}
