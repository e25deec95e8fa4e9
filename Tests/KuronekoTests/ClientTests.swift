import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The client and its scheduler on a manual clock with a scripted transport: pacing, retries, deadlines,
/// cancellation, as the tasks and the actor really run them.
@Suite("Client: politeness, retries, deadlines, cancellation", .timeLimit(.minutes(10)))
struct ClientTests {
    fileprivate static func response(_ status: Int, _ body: Data = Data()) -> UpstreamResponse {
        UpstreamResponse(status: status, headers: ["Content-Type": "text/html; charset=UTF-8"], body: body)
    }

    fileprivate static func page(for request: UpstreamRequest) -> UpstreamResponse {
        response(200, FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
    }

    @Test("request starts are at least 1 s apart and at most 2 are in flight")
    func politeness() async throws {
        let clock = ManualClock()
        let release = AsyncGate()
        let transport = ScriptedTransport(clock: clock) { _, request in
            await release.wait()
            return Self.page(for: request)
        }
        let client = TrackingClient(transport: transport, clock: clock)
        let numbers = BatchingTests.numbers(30)
        let lookup = Task { try await client.track(numbers) }

        await transport.waitForCalls(1)
        await clock.waitForSleeper(until: .seconds(1))
        clock.advance(by: .seconds(1))
        await transport.waitForCalls(2)
        // Both slots are busy: the third request waits for a POST to end, not for the clock.
        clock.advance(by: .seconds(5))
        #expect(await transport.calls.count == 2)
        #expect(await transport.maxInFlight == 2)
        await release.open()

        let shipments = try await lookup.value
        #expect(shipments.map(\.trackingNumber) == numbers)
        let starts = await transport.calls.map { $0.startedAt }
        #expect(starts == [Duration.zero, .seconds(1), .seconds(6)])
        #expect(await transport.maxInFlight == 2)
    }

    @Test("5xx answers are retried with growing backoff, then succeed")
    func retriesServerErrors() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock) { index, request in
            index < 2 ? Self.response(503) : Self.page(for: request)
        }
        let client = TrackingClient(
            configuration: .init(
                minimumRequestInterval: .zero,
                retry: RetryPolicy(initialBackoff: .seconds(2), maxBackoff: .seconds(60)),
                batchWindow: .zero),
            transport: transport, clock: clock, randomFraction: { 0.5 })
        let number = BatchingTests.numbers(1)[0]
        let lookup = Task { try await client.track(number) }

        // Backoff 2 s · 0.75 = 1.5 s, then 4 s · 0.75 = 3 s.
        await clock.waitForSleeper(until: .milliseconds(1500))
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleeper(until: .milliseconds(4500))
        clock.advance(by: .seconds(3))
        #expect(try await lookup.value.trackingNumber == number)
        let starts = await transport.calls.map { $0.startedAt }
        #expect(starts == [Duration.zero, .milliseconds(1500), .milliseconds(4500)])
    }

    @Test("after the last retry the error says what failed and how often")
    func retriesExhausted() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in
            throw TransportError(.timeout, "127.0.0.1 did not answer within the request timeout")
        }
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .zero, batchWindow: .zero), transport: transport,
            clock: clock, randomFraction: { 0 })
        let lookup = Task { try await client.track(BatchingTests.numbers(1)[0]) }

        await clock.waitForSleeper(until: .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        await clock.waitForSleeper(until: .milliseconds(1500))
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: TrackingError.self) { try await lookup.value }
        #expect(error?.code == .timeout)
        #expect(error?.message == "127.0.0.1 did not answer within the request timeout (after 3 attempts)")
        #expect(await transport.calls.count == 3)
    }

    @Test("4xx answers, refused pages and other transport errors are never retried", arguments: [0, 1, 2])
    func notRetried(kind: Int) async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in
            switch kind {
            case 0: return Self.response(403)
            case 1: return Self.response(200, Data("<html><title>メンテナンス中</title></html>".utf8))
            default: throw TransportError(.other, "TLS handshake failed")
            }
        }
        let client = TrackingClient(configuration: .init(batchWindow: .zero), transport: transport, clock: clock)
        let error = await #expect(throws: TrackingError.self) { try await client.track(BatchingTests.numbers(1)[0]) }
        #expect(await transport.calls.count == 1)
        // A page that is not the carrier's result page: its layout is not understood.
        #expect(error?.code == [.httpStatus, .pageNotUnderstood, .transport][kind])
        if kind == 1 { #expect(error?.carrier == .yamato) }
        if kind == 0 { #expect(error?.httpStatus == 403) }
        if kind == 1 { #expect(error?.pageError?.code == .unrecognizedLayout) }
    }

    @Test("cancelling stops the wait for a retry and sends nothing more")
    func cancellation() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in Self.response(502) }
        let client = TrackingClient(
            configuration: .init(batchWindow: .zero), transport: transport, clock: clock, randomFraction: { 0 })
        let lookup = Task { try await client.track(BatchingTests.numbers(1)[0]) }
        await clock.waitForSleeper(until: .milliseconds(500))
        lookup.cancel()
        await #expect(throws: CancellationError.self) { try await lookup.value }
        await client.scheduler.waitForStatistics { $0.cancelledNumbers == 1 }
        clock.advance(by: .seconds(10))
        #expect(await transport.calls.count == 1)
    }

    @Test("a hanging upstream costs a lookup its deadline, not three request timeouts")
    func deadlineBoundsAttempts() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in
            await suspendUntilCancelled()
            throw CancellationError()
        }
        let client = TrackingClient(
            configuration: .init(minimumRequestInterval: .zero, batchWindow: .zero), transport: transport,
            clock: clock)
        let lookup = Task { try await client.track(BatchingTests.numbers(1)[0], deadline: .seconds(10)) }
        // The attempt's own timeout is cut to the deadline; the waiter's deadline fires at the same moment.
        await transport.waitForCalls(1)
        await clock.waitForSleeper(until: .seconds(10))
        clock.advance(by: .seconds(10))
        let error = await #expect(throws: TrackingError.self) { try await lookup.value }
        #expect(error?.code == .deadlineExceeded)
        await client.scheduler.waitForStatistics { $0.inFlight == 0 }
        #expect(await transport.calls.count == 1)
        #expect(client.scheduler.statistics.expired == 1)
    }

    @Test("an interactive number overtakes queued background numbers in the next POST")
    func priorities() async throws {
        let clock = ManualClock()
        let release = AsyncGate()
        let transport = ScriptedTransport(clock: clock) { _, request in
            await release.wait()
            return Self.page(for: request)
        }
        let client = TrackingClient(
            configuration: .init(maxConcurrentRequests: 1, minimumRequestInterval: .zero), transport: transport,
            clock: clock)
        let background = BatchingTests.numbers(45)
        let polling = Task { try await client.track(background, priority: .background) }
        await transport.waitForCalls(1)
        let urgent = ValidNumbers.number(77_000_000_000)
        let lookup = Task { try await client.track(urgent) }
        await client.scheduler.waitForStatistics { $0.queued[.interactive] == 1 }
        await release.open()
        #expect(try await lookup.value.trackingNumber == urgent)
        _ = try await polling.value
        let sent = await transport.calls.map { FakeTrackingPage.numbers(inFormBody: $0.request.body) }
        #expect(sent.count == 5)
        #expect(sent[1].first == urgent)
        #expect(sent[1].count == 10)
    }

    @Test("the local budget: cancelling stops the wait for a slot, and the slot is not lost")
    func budgetCancellation() async throws {
        let budget = LocalUpstreamBudget(maxConcurrent: 1, minimumInterval: .zero, clock: ManualClock())
        try await budget.acquire()
        let waiting = Task { try await budget.acquire() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await budget.release()
        try await budget.acquire()
        await budget.release()
    }

    @Test("the local budget: a lookup's further request waits the interval from the last start, keeping its place")
    func budgetPacesFurtherRequests() async throws {
        let clock = ManualClock()
        let budget = LocalUpstreamBudget(maxConcurrent: 1, minimumInterval: .seconds(1), clock: clock)
        try await budget.acquire()
        await budget.started()
        // The lookup's second request: one second after the first, without a second place in flight.
        let second = Task { try await budget.paced() }
        await clock.waitForSleeper(until: .seconds(1))
        clock.advance(by: .seconds(1))
        try await second.value
        // The next lookup waits for the place and then a second after that request, not after the first.
        let next = Task { try await budget.acquire() }
        await budget.release()
        await clock.waitForSleeper(until: .seconds(2))
        clock.advance(by: .seconds(1))
        try await next.value
        #expect(clock.uptime == .seconds(2))
        await budget.release()
    }

    @Test("backoff doubles, is capped, and its jitter stays within half to all of it")
    func backoff() {
        let policy = RetryPolicy(maxRetries: 5, initialBackoff: .seconds(1), maxBackoff: .seconds(8))
        #expect(policy.delay(beforeRetry: 1, randomFraction: 0.999_999) <= .seconds(1))
        #expect(policy.delay(beforeRetry: 1, randomFraction: 0) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 2, randomFraction: 0) == .seconds(1))
        #expect(policy.delay(beforeRetry: 3, randomFraction: 0) == .seconds(2))
        #expect(policy.delay(beforeRetry: 9, randomFraction: 0) == .seconds(4))
        #expect(policy.delay(beforeRetry: 60, randomFraction: 0.999_999) <= .seconds(8))
    }

    @Test("the Content-Type charset is read from the response")
    func declaredCharset() {
        #expect(
            UpstreamResponse(status: 200, headers: ["content-type": "text/html; charset=Shift_JIS"], body: Data())
                .declaredCharset == "Shift_JIS")
        #expect(
            UpstreamResponse(status: 200, headers: ["Content-Type": "text/html;charset=\"utf-8\""], body: Data())
                .declaredCharset == "utf-8")
        #expect(
            UpstreamResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data()).declaredCharset == nil)
    }
}

/// A one-shot gate: tasks wait until the test opens it.
actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}
