import Foundation
import Kuroneko

/// A transport whose answers the test scripts, recording every request and when it started.
public actor ScriptedTransport: HTTPTransport {
    public struct Call: Sendable {
        public let request: UpstreamRequest
        public let startedAt: Duration
    }

    private let clock: ManualClock
    private let answer: @Sendable (_ callIndex: Int, _ request: UpstreamRequest) async throws -> UpstreamResponse
    public private(set) var calls: [Call] = []
    private var inFlight = 0
    public private(set) var maxInFlight = 0
    private var callWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(
        clock: ManualClock,
        answer: @escaping @Sendable (_ callIndex: Int, _ request: UpstreamRequest) async throws -> UpstreamResponse
    ) {
        self.clock = clock
        self.answer = answer
    }

    /// A transport that answers every request with a page for exactly the numbers asked.
    public static func pages(clock: ManualClock) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { _, request in
            UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
        }
    }

    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let index = calls.count
        calls.append(Call(request: request, startedAt: clock.uptime))
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        let ready = callWatchers.filter { $0.count <= calls.count }
        callWatchers.removeAll { $0.count <= calls.count }
        ready.forEach { $0.continuation.resume() }
        defer { inFlight -= 1 }
        return try await answer(index, request)
    }

    /// Returns once at least `count` requests have been sent.
    public func waitForCalls(_ count: Int) async {
        if calls.count >= count { return }
        await withCheckedContinuation { callWatchers.append((count, $0)) }
    }
}
