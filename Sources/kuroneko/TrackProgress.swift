import Foundation
import Kuroneko
import Synchronization

/// The progress line `track` keeps on standard error while numbers are outstanding (only on a terminal):
/// numbers answered of the total, requests sent, and the time left (``secondsLeft``): each carrier's own
/// schedule for what it has queued (Yamato ten numbers a request, Sagawa and Japan Post one; they run side by
/// side), corrected by the pace answers have actually come at once there are a few seconds of them.
/// Redrawn four times a second and whenever an answer arrives; taken off while a result line is printed,
/// and at the end.
final class TrackProgress: Sendable {
    private struct State {
        var answered = 0
        var answeredDistinct = Set<TrackingNumber>()
        var shown = false
        var stopped = false
        /// Taken off while an awaited body prints (``whileCleared(_:_:)`` async): not redrawn meanwhile.
        var paused = false
    }

    private let total: Int
    private let distinct: Int
    private let interval: Duration
    private let client: MultiCarrierClient
    private let terminal: Terminal
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    init(total: Int, distinct: Int, client: MultiCarrierClient, terminal: Terminal) {
        self.total = total
        self.distinct = distinct
        self.interval = client.clients[.yamato]?.configuration.minimumRequestInterval ?? .seconds(1)
        self.client = client
        self.terminal = terminal
    }

    func start() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                self?.redraw()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        ticker.withLock { $0 = task }
    }

    func answered(_ number: TrackingNumber) {
        state.withLock { state in
            state.answered += 1
            state.answeredDistinct.insert(number)
        }
        redraw()
    }

    /// Takes the line off for good.
    func stop() {
        ticker.withLock { task in
            task?.cancel()
            task = nil
        }
        state.withLock { state in
            state.stopped = true
            if state.shown { terminal.writeError("\r\u{1B}[K") }
            state.shown = false
        }
    }

    /// Runs `body` (which prints a line) with the progress line taken off, then puts it back.
    /// The same for a body that awaits (recording into the watch list): the line stays off, and is not
    /// redrawn by the ticker, until it returns.
    static func whileCleared(_ progress: TrackProgress?, _ body: () async throws -> Void) async rethrows {
        guard let progress else { return try await body() }
        progress.state.withLock { state in
            if state.shown { progress.terminal.writeError("\r\u{1B}[K") }
            state.shown = false
            state.paused = true
        }
        defer {
            progress.state.withLock { $0.paused = false }
            progress.redraw()
        }
        try await body()
    }

    static func whileCleared(_ progress: TrackProgress?, _ body: () throws -> Void) rethrows {
        guard let progress else { return try body() }
        try progress.state.withLock { state in
            if state.shown { progress.terminal.writeError("\r\u{1B}[K") }
            state.shown = false
            try body()
        }
        progress.redraw()
    }

    /// `tracking: 40/200 answered · 4 requests sent · about 16 s left`
    static func line(answered: Int, total: Int, requests: Int, secondsLeft: Int?) -> String {
        let left = secondsLeft.map { $0 > 0 ? "about \($0) s left" : "waiting for the last answers" } ?? ""
        return "tracking: \(answered)/\(total) answered · \(requests) request\(requests == 1 ? "" : "s") sent"
            + (left.isEmpty ? "" : " · " + left)
    }

    /// Seconds left: before `observedAfter` seconds of answers, the larger of the carriers' schedules (each
    /// one's wait for what it has queued; they run side by side) and Yamato's pace for what is left (ten a
    /// request, one request per `interval`); after that, the larger of the schedules and the pace answers have
    /// come at (what is left, at the rate answered so far).
    static func secondsLeft(
        remaining: Int, scheduled: [Double], elapsed: Double, answered: Int, interval: Double,
        observedAfter: Double = 5
    ) -> Int {
        guard remaining > 0 else { return 0 }
        let schedule = scheduled.max() ?? 0
        let paced: Double
        if elapsed >= observedAfter, answered > 0 {
            paced = Double(remaining) * elapsed / Double(answered)
        } else {
            paced = Double((remaining + 9) / 10) * interval
        }
        return Int(max(schedule, paced).rounded(.up))
    }

    private func redraw() {
        let all = client.clients.values.map(\.scheduler.statistics)
        let requests = all.map(\.started).reduce(0, +)
        let scheduled = all.map { statistics in
            statistics.queued.values.reduce(0, +) + statistics.inFlight > 0
                ? statistics.estimatedWait / .seconds(1) : 0
        }
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        state.withLock { state in
            guard !state.stopped, !state.paused, state.answered < total else { return }
            let seconds = Self.secondsLeft(
                remaining: distinct - state.answeredDistinct.count, scheduled: scheduled, elapsed: elapsed,
                answered: state.answeredDistinct.count, interval: interval / .seconds(1))
            let text = Self.line(
                answered: state.answered, total: total, requests: requests, secondsLeft: seconds)
            terminal.writeError("\r\u{1B}[K" + text)
            state.shown = true
        }
    }
}
