import Foundation

extension UpstreamScheduler {
    /// Every decision about what goes to Yamato and when, as a value: events in, actions out.
    ///
    /// It coalesces (one fetch per number however many wait), fills POSTs of up to ten from the highest
    /// priority down at the moment a POST may leave, sheds lookups whose deadline the queue cannot meet,
    /// expires waiters at their deadline, drops numbers nobody waits for, retries failed POSTs within the
    /// waiters' remaining time, and keeps the circuit breaker, counted per POST. It knows nothing of tasks,
    /// sockets or clocks: time arrives with each event, and the actor that owns it performs the actions.
    /// Politeness itself (how many POSTs at once, how far apart) is the budget's: the machine asks for a
    /// slot (`acquireSlot`) and composes the POST when the slot is granted.
    struct StateMachine: Sendable {
        struct Policy: Sendable {
            var batchSize = BatchPlan.maximumBatchSize
            /// How long the first queued number waits for others before a POST of fewer than ten may leave.
            var batchWindow: Duration
            /// The budget's interval between starts, for estimating waits.
            var minimumInterval: Duration
            /// The budget's POSTs in flight, for estimating waits.
            var maxConcurrent: Int
            var requestTimeout: Duration
            var retry: RetryPolicy
            var breaker: CircuitBreakerPolicy
            /// The most numbers queued (not yet in a POST); more are shed.
            var queueCapacity: Int
            /// The carrier's name in English, for the messages (Yamato, Sagawa Express…).
            var carrierName = "Yamato"
        }

        typealias WaiterID = UInt64
        typealias PostID = UInt64

        /// One attempt of a POST: the numbers, in form order, and how long it may take.
        struct Post: Sendable, Hashable {
            let id: PostID
            let numbers: [TrackingNumber]
            /// 1 for the first attempt.
            let attempt: Int
            let timeout: Duration
        }

        enum Action: Sendable, Hashable {
            /// Ask the budget for one POST start; answer with ``StateMachine/slotGranted(now:)``.
            case acquireSlot
            /// Give a slot back to the budget (a POST ended, or a granted slot found nothing to send).
            case releaseSlot
            /// Send this POST and report how it ended.
            case send(Post)
            /// Nobody waits for this POST's numbers any more: stop it (it still reports how it ended).
            case cancel(PostID)
            case answer([WaiterID], Shipment)
            case fail([WaiterID], TrackingError)
        }

        typealias Statistics = UpstreamStatistics

        private enum Phase: Hashable {
            case queued(ticket: UInt64)
            case posted(PostID)
        }

        /// A number somebody wants.
        private struct Wanted {
            var waiters: Set<WaiterID>
            var priority: UpstreamPriority
            var phase: Phase
        }

        private struct Waiter {
            let number: TrackingNumber
            let deadline: Duration?
        }

        private enum PostPhase {
            case inFlight(startedAt: Duration)
            case awaitingRetry(at: Duration, lastError: TrackingError)
        }

        private struct PostState {
            var numbers: [TrackingNumber]
            var attempt: Int
            var phase: PostPhase
        }

        /// One priority's queue, oldest first. Entries whose ticket no longer matches the number's are stale
        /// (the number left, or moved up to a higher priority) and are skipped.
        private struct Queue {
            struct Entry {
                let number: TrackingNumber
                let ticket: UInt64
                let arrival: Duration
            }

            var entries: [Entry] = []
            var head = 0
            /// Live entries.
            var count = 0

            mutating func compactIfWasteful() {
                if head > 1024, head * 2 > entries.count {
                    entries.removeFirst(head)
                    head = 0
                }
            }
        }

        let policy: Policy
        private var breaker: CircuitBreaker
        private var wanted: [TrackingNumber: Wanted] = [:]
        private var waiters: [WaiterID: Waiter] = [:]
        private var posts: [PostID: PostState] = [:]
        private var queues = [Queue](repeating: Queue(), count: UpstreamPriority.allCases.count)
        private var deadlines = DeadlineHeap()
        private var slotRequested = false
        /// Shut down: nothing more is queued or sent.
        private var stopping = false
        /// A caller has asked for everything it is going to ask: send what is queued without the window.
        private var flushed = false
        private var inFlight = 0
        private var lastStart: Duration?
        private var probe: PostID?
        private var nextTicket: UInt64 = 0
        private var nextPostID: PostID = 0
        /// Smoothed time a POST takes, for estimating waits.
        private var typicalPostDuration: Duration = .zero
        private var counters = Statistics()

        init(policy: Policy) {
            self.policy = policy
            breaker = CircuitBreaker(policy: policy.breaker)
        }

        var circuitState: CircuitState { breaker.state }

        // MARK: Events

        /// Someone wants a number's shipment by `deadline` (`nil`: no deadline).
        mutating func want(
            _ number: TrackingNumber, waiter: WaiterID, priority: UpstreamPriority, deadline: Duration?,
            now: Duration
        ) -> [Action] {
            var actions = advance(to: now)
            if stopping {
                actions.append(.fail([waiter], .shuttingDown))
                return actions
            }
            if let retryAfter = breaker.retryAfter(at: now) {
                counters.rejectedWhileOpen += 1
                actions.append(
                    .fail(
                        [waiter],
                        .circuitOpen(
                            retryAfter: retryAfter, failures: policy.breaker.failureThreshold, carrier: policy.carrierName)))
                return actions
            }
            if var entry = wanted[number] {
                entry.waiters.insert(waiter)
                if priority > entry.priority, case .queued = entry.phase {
                    queues[entry.priority.rawValue].count -= 1
                    entry.phase = enqueue(number, priority: priority, now: now)
                }
                entry.priority = max(entry.priority, priority)
                wanted[number] = entry
                register(waiter, for: number, deadline: deadline)
                return actions
            }
            let wait = estimatedWait(priority: priority, now: now)
            let queueFull = queuedTotal >= policy.queueCapacity
            if queueFull || deadline.map({ now + wait > $0 }) == true {
                counters.shed += 1
                let allowed = deadline.map { $0 - now }
                actions.append(
                    .fail(
                        [waiter],
                        .overloaded(
                            estimatedWait: wait, deadline: allowed, queueFull: queueFull, carrier: policy.carrierName)))
                return actions
            }
            let phase = enqueue(number, priority: priority, now: now)
            wanted[number] = Wanted(waiters: [waiter], priority: priority, phase: phase)
            register(waiter, for: number, deadline: deadline)
            actions += startIfReady(now: now)
            return actions
        }

        /// Stop: queued numbers and POSTs waiting for a retry are answered `shutting_down` at once, and so is
        /// every number wanted from now on; POSTs under way finish.
        mutating func shutDown(now: Duration) -> [Action] {
            stopping = true
            var actions = failEverythingWaiting(now: now, with: .shuttingDown)
            actions += advance(to: now)
            return actions
        }

        /// The numbers wanted so far are all the caller will want for now: no need to wait for more.
        mutating func flush(now: Duration) -> [Action] {
            flushed = queuedTotal > 0
            return advance(to: now)
        }

        /// A waiter stopped waiting (its task was cancelled, its client went away).
        mutating func waiterGone(_ waiter: WaiterID, now: Duration) -> [Action] {
            var actions: [Action] = []
            if let gone = waiters.removeValue(forKey: waiter) {
                actions += detach(waiter, from: gone.number, expired: false, now: now)
            }
            actions += advance(to: now)
            return actions
        }

        /// The budget allows one POST to start now.
        mutating func slotGranted(now: Duration) -> [Action] {
            var actions = advance(to: now)
            slotRequested = false
            guard breaker.permitsStart, let post = nextPost(now: now) else {
                actions.append(.releaseSlot)
                actions += startIfReady(now: now)
                return actions
            }
            inFlight += 1
            counters.started += 1
            lastStart = now
            if breaker.state == .halfOpen { probe = post.id }
            breaker.postStarted()
            actions.append(.send(post))
            actions += startIfReady(now: now)
            return actions
        }

        /// A POST answered with the shipments of its numbers, in form order.
        /// A POST answered; it sent `requests` HTTP requests (its time is observed per request: a lookup whose
        /// further requests waited their turn in the budget says nothing of how long one request takes).
        mutating func postSucceeded(_ id: PostID, shipments: [Shipment], requests: Int = 1, now: Duration) -> [Action] {
            var actions = endAttempt(id)
            if let post = posts.removeValue(forKey: id) {
                if case .inFlight(let startedAt) = post.phase { observeDuration((now - startedAt) / max(1, requests)) }
                breaker.postSucceeded()
                for (number, shipment) in zip(post.numbers, shipments) {
                    guard let entry = wanted.removeValue(forKey: number) else { continue }
                    entry.waiters.forEach { waiters[$0] = nil }
                    if !entry.waiters.isEmpty { actions.append(.answer(entry.waiters.sorted(), shipment)) }
                }
            }
            actions += advance(to: now)
            return actions
        }

        /// A POST failed; `randomFraction` in [0, 1) jitters the backoff before a retry.
        mutating func postFailed(
            _ id: PostID, failure: UpstreamAttemptFailure, randomFraction: Double, now: Duration
        ) -> [Action] {
            // Deadlines that passed at this same moment are answered as such first.
            var actions = advance(to: now)
            actions += endAttempt(id)
            guard var post = posts[id], case .inFlight(let startedAt) = post.phase else {
                actions += advance(to: now)
                return actions
            }
            observeDuration(now - startedAt)
            // A page not understood came from a carrier that answered: no reason to stop asking it (the
            // canary and other numbers still tell when it is read again), so the breaker sees an answer.
            var opened = false
            if failure.isAnswerNotUnderstood {
                breaker.postSucceeded()
            } else {
                opened = breaker.postFailed(at: now)
            }
            let error = failure.error(attempts: post.attempt)
            post.numbers = dropUnwanted(post.numbers)
            let retryAt = now + policy.retry.delay(beforeRetry: post.attempt, randomFraction: randomFraction)
            let latest = latestDeadline(of: post.numbers)
            if failure.mayPass, post.attempt <= policy.retry.maxRetries, !opened, !post.numbers.isEmpty,
                latest.map({ retryAt < $0 }) ?? true
            {
                post.phase = .awaitingRetry(at: retryAt, lastError: error)
                posts[id] = post
            } else {
                posts[id] = nil
                actions += failNumbers(post.numbers, with: error)
            }
            if opened { actions += failEverythingWaiting(now: now) }
            actions += advance(to: now)
            return actions
        }

        /// A POST the machine called off (``Action/cancel(_:)``) has stopped.
        mutating func postCancelled(_ id: PostID, now: Duration) -> [Action] {
            var actions = endAttempt(id)
            actions += advance(to: now)
            return actions
        }

        /// Time passed: deadlines, the end of the cool-down, a retry or a batch window may be due.
        mutating func tick(now: Duration) -> [Action] {
            advance(to: now)
        }

        // MARK: Queries

        /// When the owner should call ``tick(now:)`` next, if nothing else happens first.
        func nextWake() -> Duration? {
            var candidates: [Duration] = []
            if let first = deadlines.first { candidates.append(first.deadline) }
            if let until = breaker.openUntil { candidates.append(until) }
            if !slotRequested, breaker.permitsStart {
                for post in posts.values {
                    if case .awaitingRetry(let at, _) = post.phase { candidates.append(at) }
                }
                if queuedTotal > 0, queuedTotal < policy.batchSize, !flushed, let oldest = oldestArrival() {
                    candidates.append(oldest + policy.batchWindow)
                }
            }
            return candidates.min()
        }

        func statistics(now: Duration) -> Statistics {
            var statistics = counters
            for priority in UpstreamPriority.allCases {
                statistics.queued[priority] = queues[priority.rawValue].count
            }
            statistics.inFlight = inFlight
            statistics.circuit = breaker.state
            statistics.estimatedWait = estimatedWait(priority: .interactive, now: now)
            return statistics
        }

        /// What a number wanted now at `priority` would wait for its answer: the POSTs that go before it
        /// (queued numbers of its priority and above, ten a POST, and retries due), one start interval
        /// each, plus the time a POST takes.
        func estimatedWait(priority: UpstreamPriority, now: Duration) -> Duration {
            let ahead = UpstreamPriority.allCases.filter { $0 >= priority }.reduce(0) {
                $0 + queues[$1.rawValue].count
            }
            let retries = posts.values.filter {
                if case .awaitingRetry = $0.phase { return true }
                return false
            }.count
            let pace = max(policy.minimumInterval, typicalPostDuration / max(1, policy.maxConcurrent))
            var firstStart = now
            if let lastStart { firstStart = max(now, lastStart + pace) }
            let postsAhead = ahead / policy.batchSize + retries
            return (firstStart - now) + pace * postsAhead + typicalPostDuration
        }

        // MARK: Internals

        private var queuedTotal: Int { queues.reduce(0) { $0 + $1.count } }

        private mutating func register(_ waiter: WaiterID, for number: TrackingNumber, deadline: Duration?) {
            waiters[waiter] = Waiter(number: number, deadline: deadline)
            if let deadline { deadlines.insert(.init(deadline: deadline, waiter: waiter)) }
        }

        private mutating func enqueue(_ number: TrackingNumber, priority: UpstreamPriority, now: Duration) -> Phase {
            nextTicket += 1
            queues[priority.rawValue].entries.append(.init(number: number, ticket: nextTicket, arrival: now))
            queues[priority.rawValue].count += 1
            return .queued(ticket: nextTicket)
        }

        /// Expires deadlines, turns an open circuit half-open after its cool-down, and asks for a slot when
        /// work is ready.
        private mutating func advance(to now: Duration) -> [Action] {
            var actions: [Action] = []
            breaker.advance(to: now)
            while let first = deadlines.first, first.deadline <= now {
                deadlines.removeFirst()
                guard let gone = waiters.removeValue(forKey: first.waiter) else { continue }
                counters.expired += 1
                actions.append(.fail([first.waiter], .deadlineExceeded))
                actions += detach(first.waiter, from: gone.number, expired: true, now: now)
            }
            actions += startIfReady(now: now)
            return actions
        }

        /// Takes a waiter off its number; a number nobody waits for leaves the queue, and a POST nobody waits
        /// for is called off. A POST still under way when the last of its waiters' deadlines passed counts as
        /// a failed POST: the upstream was too slow (a client that went away says nothing about the upstream).
        private mutating func detach(_ waiter: WaiterID, from number: TrackingNumber, expired: Bool, now: Duration)
            -> [Action]
        {
            guard var entry = wanted[number] else { return [] }
            entry.waiters.remove(waiter)
            wanted[number] = entry
            guard entry.waiters.isEmpty else { return [] }
            switch entry.phase {
            case .queued:
                wanted[number] = nil
                queues[entry.priority.rawValue].count -= 1
                counters.cancelledNumbers += 1
                return []
            case .posted(let id):
                let actions = abandonIfUnwanted(id)
                guard expired, actions.contains(.cancel(id)), breaker.postFailed(at: now) else { return actions }
                return actions + failEverythingWaiting(now: now)
            }
        }

        private mutating func abandonIfUnwanted(_ id: PostID) -> [Action] {
            guard var post = posts[id] else { return [] }
            switch post.phase {
            case .awaitingRetry:
                post.numbers = dropUnwanted(post.numbers)
                posts[id] = post.numbers.isEmpty ? nil : post
                return []
            case .inFlight:
                guard post.numbers.allSatisfy({ wanted[$0]?.waiters.isEmpty ?? true }) else { return [] }
                for number in post.numbers where wanted.removeValue(forKey: number) != nil {
                    counters.cancelledNumbers += 1
                }
                posts[id] = nil
                return [.cancel(id)]
            }
        }

        /// The numbers somebody still waits for; the others are forgotten.
        private mutating func dropUnwanted(_ numbers: [TrackingNumber]) -> [TrackingNumber] {
            numbers.filter { number in
                if wanted[number]?.waiters.isEmpty == false { return true }
                if wanted.removeValue(forKey: number) != nil { counters.cancelledNumbers += 1 }
                return false
            }
        }

        /// Bookkeeping common to every attempt that ended: its slot goes back, a probe is over.
        private mutating func endAttempt(_ id: PostID) -> [Action] {
            inFlight -= 1
            if probe == id {
                probe = nil
                if posts[id] == nil { breaker.probeAbandoned() }
            }
            return [.releaseSlot]
        }

        private mutating func startIfReady(now: Duration) -> [Action] {
            guard !slotRequested, !stopping, breaker.permitsStart, hasReadyWork(now: now) else { return [] }
            slotRequested = true
            return [.acquireSlot]
        }

        private mutating func hasReadyWork(now: Duration) -> Bool {
            if dueRetry(now: now) != nil { return true }
            let total = queuedTotal
            if total == 0 { flushed = false }
            if total >= policy.batchSize || (flushed && total > 0) { return true }
            guard total > 0, let oldest = oldestArrival() else { return false }
            return oldest + policy.batchWindow <= now
        }

        private func dueRetry(now: Duration) -> PostID? {
            var due: (id: PostID, at: Duration)?
            for (id, post) in posts {
                guard case .awaitingRetry(let at, _) = post.phase, at <= now else { continue }
                if due.map({ at < $0.at || (at == $0.at && id < $0.id) }) ?? true { due = (id, at) }
            }
            return due?.id
        }

        /// The arrival of the oldest live queued number, looking at each queue's first live entry.
        private func oldestArrival() -> Duration? {
            var oldest: Duration?
            for queue in queues where queue.count > 0 {
                for entry in queue.entries[queue.head...] where isLive(entry) {
                    oldest = min(oldest ?? entry.arrival, entry.arrival)
                    break
                }
            }
            return oldest
        }

        private func isLive(_ entry: Queue.Entry) -> Bool {
            wanted[entry.number]?.phase == .queued(ticket: entry.ticket)
        }

        /// The POST to send with a granted slot: a retry that is due, else up to ten queued numbers, highest
        /// priority first.
        private mutating func nextPost(now: Duration) -> Post? {
            if let id = dueRetry(now: now), var post = posts[id] {
                post.attempt += 1
                post.phase = .inFlight(startedAt: now)
                posts[id] = post
                return Post(
                    id: id, numbers: post.numbers, attempt: post.attempt, timeout: timeout(for: post.numbers, now: now))
            }
            nextPostID += 1
            let id = nextPostID
            var numbers: [TrackingNumber] = []
            for priority in UpstreamPriority.descending {
                var queue = queues[priority.rawValue]
                while numbers.count < policy.batchSize, queue.count > 0, queue.head < queue.entries.count {
                    let entry = queue.entries[queue.head]
                    queue.head += 1
                    guard isLive(entry) else { continue }
                    queue.count -= 1
                    wanted[entry.number]?.phase = .posted(id)
                    numbers.append(entry.number)
                }
                queue.compactIfWasteful()
                queues[priority.rawValue] = queue
            }
            guard !numbers.isEmpty else { return nil }
            posts[id] = PostState(numbers: numbers, attempt: 1, phase: .inFlight(startedAt: now))
            return Post(id: id, numbers: numbers, attempt: 1, timeout: timeout(for: numbers, now: now))
        }

        /// The request timeout, cut short by the latest deadline of the POST's waiters: a hanging upstream
        /// costs a waiter no more than its deadline.
        private func timeout(for numbers: [TrackingNumber], now: Duration) -> Duration {
            guard let latest = latestDeadline(of: numbers) else { return policy.requestTimeout }
            return max(.milliseconds(1), min(policy.requestTimeout, latest - now))
        }

        /// The latest deadline among the waiters for these numbers; `nil` if any of them has none.
        private func latestDeadline(of numbers: [TrackingNumber]) -> Duration? {
            var latest = Duration.zero
            for number in numbers {
                for waiter in wanted[number]?.waiters ?? [] {
                    guard let deadline = waiters[waiter]?.deadline else { return nil }
                    latest = max(latest, deadline)
                }
            }
            return latest
        }

        private mutating func failNumbers(_ numbers: [TrackingNumber], with error: TrackingError) -> [Action] {
            var failed: [WaiterID] = []
            for number in numbers {
                guard let entry = wanted.removeValue(forKey: number) else { continue }
                for waiter in entry.waiters where waiters.removeValue(forKey: waiter) != nil {
                    failed.append(waiter)
                }
            }
            return failed.isEmpty ? [] : [.fail(failed.sorted(), error)]
        }

        /// The circuit just opened: queued numbers and retries waiting for their turn are answered now
        /// rather than held through the cool-down.
        private mutating func failEverythingWaiting(now: Duration, with error: TrackingError? = nil) -> [Action] {
            var actions: [Action] = []
            for (id, post) in posts {
                guard case .awaitingRetry(_, let lastError) = post.phase else { continue }
                posts[id] = nil
                actions += failNumbers(post.numbers, with: error ?? lastError)
            }
            var queued: [TrackingNumber] = []
            for index in queues.indices {
                for entry in queues[index].entries[queues[index].head...] where isLive(entry) {
                    queued.append(entry.number)
                }
                queues[index] = Queue()
            }
            let retryAfter = breaker.retryAfter(at: now) ?? policy.breaker.coolDown
            actions += failNumbers(
                queued,
                with: error
                    ?? .circuitOpen(
                        retryAfter: retryAfter, failures: policy.breaker.failureThreshold, carrier: policy.carrierName))
            return actions
        }

        private mutating func observeDuration(_ duration: Duration) {
            typicalPostDuration =
                typicalPostDuration == .zero ? duration : (typicalPostDuration * 3 + duration) / 4
        }
    }
}
