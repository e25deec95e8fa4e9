import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The scheduler's policy, driven event by event: no tasks, no sockets, no clock.
@Suite("Upstream scheduler state machine")
struct SchedulerStateMachineTests {
    typealias Machine = UpstreamScheduler.StateMachine

    private static func machine(
        window: Duration = .milliseconds(20), interval: Duration = .seconds(1), retries: Int = 2,
        breaker: CircuitBreakerPolicy = .init(failureThreshold: 5, coolDown: .seconds(30)), capacity: Int = 10_000
    ) -> Machine {
        Machine(
            policy: .init(
                batchWindow: window, minimumInterval: interval, maxConcurrent: 2, requestTimeout: .seconds(15),
                retry: RetryPolicy(maxRetries: retries, initialBackoff: .seconds(1), maxBackoff: .seconds(8)),
                breaker: breaker, queueCapacity: capacity))
    }

    private static func numbers(_ count: Int, from start: UInt64 = 20_000_000_000) -> [TrackingNumber] {
        ValidNumbers.numbers(count, from: start)
    }

    private static func shipments(for numbers: [TrackingNumber]) throws -> [Shipment] {
        try TrackingPageParser().parse(FakeTrackingPage.html(for: numbers), now: Date(timeIntervalSince1970: 0))
    }

    private static let serverError = UpstreamAttemptFailure.httpStatus(
        503, endpoint: URL(string: "http://127.0.0.1/cgi-bin/tneko")!)
    private static let refusedPage = UpstreamAttemptFailure.page(
        RefusedPage(
            carrier: .yamato, error: TrackingPageError(.unrecognizedLayout, "unrecognised page layout"),
            endpoint: URL(string: "http://127.0.0.1/cgi-bin/tneko")!, body: Data("<html></html>".utf8),
            declaredCharset: nil))

    /// The POSTs among the actions.
    private static func sent(_ actions: [Machine.Action]) -> [Machine.Post] {
        actions.compactMap {
            if case .send(let post) = $0 { return post }
            return nil
        }
    }

    private static func failures(_ actions: [Machine.Action]) -> [(waiters: [UInt64], error: TrackingError)] {
        actions.compactMap {
            if case .fail(let waiters, let error) = $0 { return (waiters, error) }
            return nil
        }
    }

    private static func answered(_ actions: [Machine.Action]) -> [UInt64] {
        actions.flatMap {
            if case .answer(let waiters, _) = $0 { return waiters }
            return []
        }
    }

    @Test("one fetch per number however many wait; a lone number waits the window, ten leave at once")
    func coalescingAndWindow() throws {
        var machine = Self.machine()
        let number = Self.numbers(1)[0]
        #expect(machine.want(number, waiter: 1, priority: .interactive, deadline: nil, now: .zero).isEmpty)
        #expect(machine.want(number, waiter: 2, priority: .interactive, deadline: nil, now: .milliseconds(5)).isEmpty)
        #expect(machine.nextWake() == .milliseconds(20))
        #expect(machine.tick(now: .milliseconds(20)) == [.acquireSlot])
        let post = try #require(Self.sent(machine.slotGranted(now: .milliseconds(21))).first)
        #expect(post.numbers == [number])
        #expect(post.attempt == 1)
        let actions = machine.postSucceeded(post.id, shipments: try Self.shipments(for: [number]), now: .seconds(1))
        #expect(actions.first == .releaseSlot)
        #expect(Self.answered(actions) == [1, 2])

        var full = Self.machine()
        let ten = Self.numbers(10)
        for (index, number) in ten.enumerated().dropLast() {
            #expect(full.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero).isEmpty)
        }
        #expect(full.want(ten[9], waiter: 9, priority: .interactive, deadline: nil, now: .zero) == [.acquireSlot])
    }

    @Test("a POST is filled at the moment it may leave: highest priority first, topped up with lower")
    func priorityAndTopUp() throws {
        var machine = Self.machine()
        let background = Self.numbers(25)
        for (index, number) in background.enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .background, deadline: nil, now: .zero)
        }
        let first = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        #expect(first.numbers == Array(background[0..<10]))
        let urgent = Self.numbers(3, from: 70_000_000_000)
        _ = machine.want(urgent[0], waiter: 100, priority: .refresh, deadline: nil, now: .milliseconds(500))
        _ = machine.want(urgent[1], waiter: 101, priority: .interactive, deadline: nil, now: .milliseconds(600))
        // A background number someone now waits for interactively moves up, keeping one fetch.
        _ = machine.want(background[24], waiter: 102, priority: .interactive, deadline: nil, now: .milliseconds(700))
        let second = try #require(Self.sent(machine.slotGranted(now: .seconds(1))).first)
        #expect(second.numbers == [urgent[1], background[24], urgent[0]] + Array(background[10..<17]))
        let third = try #require(Self.sent(machine.slotGranted(now: .seconds(2))).first)
        #expect(third.numbers == Array(background[17..<24]))
        #expect(machine.statistics(now: .seconds(2)).queued.values.reduce(0, +) == 0)
    }

    @Test("with 5,000 background numbers queued, a new interactive number rides the next POST that starts")
    func interactiveOvertakesBacklog() throws {
        var machine = Self.machine()
        for (index, number) in Self.numbers(5_000).enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .background, deadline: nil, now: .zero)
        }
        _ = machine.slotGranted(now: .zero)
        let urgent = Self.numbers(1, from: 90_000_000_000)[0]
        let wait = machine.estimatedWait(priority: .interactive, now: .milliseconds(200))
        #expect(wait == .milliseconds(800))
        _ = machine.want(urgent, waiter: 9_999, priority: .interactive, deadline: .seconds(10), now: .milliseconds(200))
        let next = try #require(Self.sent(machine.slotGranted(now: .seconds(1))).first)
        #expect(next.numbers.first == urgent)
        #expect(next.numbers.count == 10)
    }

    @Test("a lookup of several requests (a list, then pages waiting their turn) counts as its time per request")
    func durationPerRequest() throws {
        var machine = Self.machine()
        let numbers = Self.numbers(10)
        for (index, number) in numbers.enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero)
        }
        let post = try #require(Self.sent(machine.slotGranted(now: .milliseconds(20))).first)
        // Eleven requests a second apart took 11 s: one request takes one.
        _ = machine.postSucceeded(
            post.id, shipments: try Self.shipments(for: post.numbers), requests: 11, now: .seconds(11) + .milliseconds(20))
        #expect(machine.estimatedWait(priority: .interactive, now: .seconds(20)) == .seconds(1))
        // A lookup on a carrier's behalf names that carrier when it is shed.
        var policy = Self.machine().policy
        policy.carrierName = "Japan Post"
        var japanPost = Machine(policy: policy)
        for (index, number) in Self.numbers(95).enumerated() {
            _ = japanPost.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero)
        }
        let late = Self.numbers(1, from: 60_000_000_000)[0]
        let shed = try #require(Self.failures(japanPost.want(late, waiter: 500, priority: .interactive, deadline: .seconds(5), now: .zero)).first)
        #expect(shed.error.message.hasPrefix("about 9 s of lookups to Japan Post are queued ahead"))
    }

    @Test("a number whose estimated wait exceeds its deadline is shed at once with that estimate")
    func shedding() throws {
        var machine = Self.machine()
        // 95 numbers ahead: this one would ride the tenth POST, nine intervals after the first start.
        for (index, number) in Self.numbers(95).enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero)
        }
        let late = Self.numbers(1, from: 60_000_000_000)[0]
        let estimate = machine.estimatedWait(priority: .interactive, now: .zero)
        #expect(estimate == .seconds(9))
        let actions = machine.want(late, waiter: 500, priority: .interactive, deadline: .seconds(5), now: .zero)
        let failure = try #require(Self.failures(actions).first)
        #expect(failure.waiters == [500])
        #expect(failure.error.code == .overloaded)
        #expect(failure.error.retryAfter == .seconds(9))
        #expect(
            failure.error.message
                == "about 9 s of lookups to Yamato are queued ahead, more than the 5 s deadline allows; try again in 9 s"
        )
        #expect(machine.statistics(now: .zero).shed == 1)
        // A background number waits behind everything queued, whatever its priority.
        #expect(machine.estimatedWait(priority: .background, now: .zero) == .seconds(9))
        // With a deadline the queue can meet, it is queued.
        #expect(
            Self.failures(machine.want(late, waiter: 501, priority: .interactive, deadline: .seconds(20), now: .zero))
                .isEmpty)

        var small = Self.machine(capacity: 3)
        for (index, number) in Self.numbers(3).enumerated() {
            _ = small.want(number, waiter: UInt64(index), priority: .background, deadline: nil, now: .zero)
        }
        let full = Self.failures(small.want(late, waiter: 9, priority: .background, deadline: nil, now: .zero))
        #expect(full.first?.error.code == .overloaded)
        #expect(full.first?.error.message.hasPrefix("the upstream queue is full") == true)
    }

    @Test("a waiter whose deadline passes gets deadline_exceeded, and its number leaves the queue unsent")
    func deadlineExpiry() throws {
        var machine = Self.machine(window: .seconds(60))
        let numbers = Self.numbers(2)
        _ = machine.want(numbers[0], waiter: 1, priority: .interactive, deadline: .seconds(5), now: .zero)
        _ = machine.want(numbers[1], waiter: 2, priority: .interactive, deadline: .seconds(8), now: .zero)
        _ = machine.want(numbers[1], waiter: 3, priority: .interactive, deadline: nil, now: .zero)
        #expect(machine.nextWake() == .seconds(5))
        let expired = Self.failures(machine.tick(now: .seconds(5)))
        #expect(expired.map(\.waiters) == [[1]])
        #expect(expired.first?.error.code == .deadlineExceeded)
        #expect(Self.failures(machine.tick(now: .seconds(8))).map(\.waiters) == [[2]])
        let statistics = machine.statistics(now: .seconds(8))
        #expect(statistics.expired == 2)
        #expect(statistics.cancelledNumbers == 1)
        #expect(statistics.queued[.interactive] == 1)
        // Only the number somebody still waits for is sent.
        _ = machine.tick(now: .seconds(60))
        #expect(Self.sent(machine.slotGranted(now: .seconds(60))).first?.numbers == [numbers[1]])
    }

    @Test("a POST's timeout is cut to its waiters' latest deadline")
    func attemptTimeout() throws {
        var machine = Self.machine(window: .zero)
        let numbers = Self.numbers(2)
        _ = machine.want(numbers[0], waiter: 1, priority: .interactive, deadline: .seconds(4), now: .zero)
        _ = machine.want(numbers[1], waiter: 2, priority: .interactive, deadline: .seconds(7), now: .zero)
        let post = try #require(Self.sent(machine.slotGranted(now: .seconds(1))).first)
        #expect(post.timeout == .seconds(6))
    }

    @Test("cancelling the last waiter drops an unsent number; calling off a POST in flight is not a failure")
    func cancellation() throws {
        var machine = Self.machine()
        let numbers = Self.numbers(12)
        for (index, number) in numbers.enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero)
        }
        _ = machine.want(numbers[11], waiter: 99, priority: .interactive, deadline: nil, now: .zero)
        let post = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        // Unsent: number 10 leaves with its only waiter; number 11 stays for waiter 99.
        _ = machine.waiterGone(10, now: .milliseconds(1))
        _ = machine.waiterGone(11, now: .milliseconds(1))
        #expect(machine.statistics(now: .milliseconds(1)).cancelledNumbers == 1)
        // In flight: the POST is called off only when none of its ten numbers is wanted.
        for waiter in 0..<9 {
            #expect(!machine.waiterGone(UInt64(waiter), now: .milliseconds(2)).contains(.cancel(post.id)))
        }
        #expect(machine.waiterGone(9, now: .milliseconds(2)).contains(.cancel(post.id)))
        let ended = machine.postCancelled(post.id, now: .milliseconds(3))
        #expect(ended.contains(.releaseSlot))
        #expect(machine.circuitState == .closed)
        let next = try #require(
            Self.sent(machine.tick(now: .milliseconds(30)) + machine.slotGranted(now: .seconds(1))).first)
        #expect(next.numbers == [numbers[11]])
    }

    @Test("retries back off per POST, only while the waiters' deadlines allow, only for failures that may pass")
    func retries() throws {
        var machine = Self.machine(window: .zero, interval: .zero)
        let numbers = Self.numbers(3)
        _ = machine.want(numbers[0], waiter: 1, priority: .interactive, deadline: .seconds(3), now: .zero)
        _ = machine.want(numbers[1], waiter: 2, priority: .interactive, deadline: .seconds(3), now: .zero)
        let first = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        // Backoff 1 s · (0.5 + 0.5 · 0.5) = 0.75 s: the retry fits before the deadline.
        let failed = machine.postFailed(
            first.id, failure: Self.serverError, randomFraction: 0.5, now: .milliseconds(100))
        #expect(Self.failures(failed).isEmpty)
        #expect(machine.nextWake() == .milliseconds(850))
        #expect(machine.tick(now: .milliseconds(850)).contains(.acquireSlot))
        let second = try #require(Self.sent(machine.slotGranted(now: .milliseconds(850))).first)
        #expect(second.id == first.id)
        #expect(second.attempt == 2)
        #expect(second.numbers == first.numbers)
        #expect(second.timeout == .milliseconds(2150))
        // Backoff 2 s · 0.75 = 1.5 s would pass the deadline: the waiters get the error now, with the count.
        let gaveUp = Self.failures(
            machine.postFailed(second.id, failure: Self.serverError, randomFraction: 0.5, now: .seconds(2)))
        #expect(gaveUp.first?.waiters == [1, 2])
        #expect(gaveUp.first?.error.code == .httpStatus)
        #expect(gaveUp.first?.error.message.hasSuffix("answered HTTP 503 (after 2 attempts)") == true)

        // A refused page would come back the same: never retried.
        _ = machine.want(numbers[2], waiter: 3, priority: .interactive, deadline: nil, now: .seconds(3))
        let third = try #require(Self.sent(machine.slotGranted(now: .seconds(3))).first)
        let refused = Self.failures(
            machine.postFailed(third.id, failure: Self.refusedPage, randomFraction: 0, now: .seconds(3)))
        #expect(refused.first?.error.code == .pageNotUnderstood)
        #expect(refused.first?.error.carrier == .yamato)
    }

    @Test("the breaker counts POSTs, not waiters: one failed POST of six numbers leaves it closed")
    func breakerCountsPosts() throws {
        var machine = Self.machine(window: .zero, retries: 0)
        let six = Self.numbers(6)
        for (index, number) in six.enumerated() {
            _ = machine.want(number, waiter: UInt64(index), priority: .interactive, deadline: nil, now: .zero)
        }
        let post = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        #expect(post.numbers.count == 6)
        let failed = Self.failures(
            machine.postFailed(post.id, failure: Self.serverError, randomFraction: 0, now: .zero))
        #expect(failed.first?.waiters == [0, 1, 2, 3, 4, 5])
        #expect(machine.circuitState == .closed)
    }

    @Test("five failed POSTs open it; the cool-down turns it half-open by itself; one probe closes or reopens it")
    func breakerHalfOpenProbe() throws {
        var machine = Self.machine(window: .zero, interval: .zero, retries: 0)
        var waiter: UInt64 = 0
        var now = Duration.zero
        func failOnePost() throws {
            waiter += 1
            _ = machine.want(
                Self.numbers(1, from: 30_000_000_000 + waiter * 1_000)[0], waiter: waiter, priority: .interactive,
                deadline: nil, now: now)
            let post = try #require(Self.sent(machine.slotGranted(now: now)).first)
            _ = machine.postFailed(post.id, failure: Self.serverError, randomFraction: 0, now: now)
            now += .seconds(1)
        }
        for _ in 0..<4 { try failOnePost() }
        #expect(machine.circuitState == .closed)
        // A number queued behind the fifth failure is answered at once when the circuit opens.
        let queued = Self.numbers(1, from: 50_000_000_000)[0]
        _ = machine.want(queued, waiter: 77, priority: .interactive, deadline: nil, now: now)
        waiter += 1
        _ = machine.want(
            Self.numbers(1, from: 40_000_000_000)[0], waiter: waiter, priority: .interactive, deadline: nil, now: now)
        let fifth = try #require(Self.sent(machine.slotGranted(now: now)).first)
        #expect(fifth.numbers.count == 2)
        _ = machine.want(
            Self.numbers(1, from: 45_000_000_000)[0], waiter: 78, priority: .interactive, deadline: nil, now: now)
        let opened = Self.failures(machine.postFailed(fifth.id, failure: Self.serverError, randomFraction: 0, now: now))
        #expect(machine.circuitState == .open)
        #expect(
            opened.contains {
                $0.waiters == [78] && $0.error.code == .circuitOpen && $0.error.retryAfter == .seconds(30)
            })
        // While open, lookups are refused at once with the time left.
        let refused = Self.failures(
            machine.want(queued, waiter: 79, priority: .interactive, deadline: nil, now: now + .seconds(10)))
        #expect(refused.first?.error.retryAfter == .seconds(20))
        #expect(machine.statistics(now: now).rejectedWhileOpen == 1)
        // The cool-down ends on the machine's own timer, with no lookup needed.
        #expect(machine.nextWake() == now + .seconds(30))
        _ = machine.tick(now: now + .seconds(30))
        #expect(machine.circuitState == .halfOpen)
        now += .seconds(30)
        // Half-open: one probe POST; others wait for its outcome.
        let probeNumbers = Self.numbers(2, from: 80_000_000_000)
        _ = machine.want(probeNumbers[0], waiter: 200, priority: .interactive, deadline: nil, now: now)
        let probe = try #require(Self.sent(machine.slotGranted(now: now)).first)
        #expect(
            machine.want(probeNumbers[1], waiter: 201, priority: .interactive, deadline: nil, now: now).contains(
                .acquireSlot) == false)
        _ = machine.postFailed(probe.id, failure: Self.serverError, randomFraction: 0, now: now)
        #expect(machine.circuitState == .open)
        _ = machine.tick(now: now + .seconds(30))
        now += .seconds(30)
        _ = machine.want(probeNumbers[0], waiter: 300, priority: .interactive, deadline: nil, now: now)
        let secondProbe = try #require(Self.sent(machine.slotGranted(now: now)).first)
        let closed = machine.postSucceeded(
            secondProbe.id, shipments: try Self.shipments(for: secondProbe.numbers), now: now)
        #expect(Self.answered(closed) == [300])
        #expect(machine.circuitState == .closed)
    }

    @Test("a POST still under way when its waiters' deadlines pass counts against the upstream")
    func expiredInFlightCounts() throws {
        var machine = Self.machine(window: .zero, breaker: .init(failureThreshold: 1, coolDown: .seconds(30)))
        let number = Self.numbers(1)[0]
        _ = machine.want(number, waiter: 1, priority: .interactive, deadline: .seconds(10), now: .zero)
        let post = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        let actions = machine.tick(now: .seconds(10))
        #expect(actions.contains(.cancel(post.id)))
        #expect(Self.failures(actions).first?.error.code == .deadlineExceeded)
        #expect(machine.circuitState == .open)

        // A client that leaves says nothing about the upstream.
        var other = Self.machine(window: .zero, breaker: .init(failureThreshold: 1, coolDown: .seconds(30)))
        _ = other.want(number, waiter: 1, priority: .interactive, deadline: .seconds(10), now: .zero)
        let second = try #require(Self.sent(other.slotGranted(now: .zero)).first)
        #expect(other.waiterGone(1, now: .seconds(1)).contains(.cancel(second.id)))
        #expect(other.circuitState == .closed)
    }

    @Test("pages not understood leave the circuit closed (the carrier answered); denial pages count against it")
    func refusedPagesAndTheBreaker() throws {
        var machine = Self.machine(window: .zero, breaker: .init(failureThreshold: 1, coolDown: .seconds(30)))
        let numbers = Self.numbers(2)
        _ = machine.want(numbers[0], waiter: 1, priority: .interactive, deadline: nil, now: .zero)
        let first = try #require(Self.sent(machine.slotGranted(now: .zero)).first)
        let refused = Self.failures(
            machine.postFailed(first.id, failure: Self.refusedPage, randomFraction: 0, now: .seconds(1)))
        #expect(refused.first?.error.code == .pageNotUnderstood)
        #expect(machine.circuitState == .closed)
        _ = machine.want(numbers[1], waiter: 2, priority: .interactive, deadline: nil, now: .seconds(2))
        let second = try #require(Self.sent(machine.slotGranted(now: .seconds(2))).first)
        let denial = UpstreamAttemptFailure.page(
            RefusedPage(
                carrier: .yamato, error: TrackingPageError(.blocked, "Yamato answered a denial page"),
                endpoint: URL(string: "http://127.0.0.1/cgi-bin/tneko")!, body: Data(), declaredCharset: nil))
        let denied = Self.failures(machine.postFailed(second.id, failure: denial, randomFraction: 0, now: .seconds(3)))
        #expect(denied.first?.error.code == .page)
        #expect(machine.circuitState == .open)
    }

    @Test("a granted slot with nothing left to send goes straight back")
    func emptyGrant() {
        var machine = Self.machine(window: .zero)
        _ = machine.want(Self.numbers(1)[0], waiter: 1, priority: .interactive, deadline: nil, now: .zero)
        _ = machine.waiterGone(1, now: .zero)
        #expect(machine.slotGranted(now: .zero) == [.releaseSlot])
    }
}
