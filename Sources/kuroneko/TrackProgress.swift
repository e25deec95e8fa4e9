import Foundation
import Kuroneko
import Synchronization

/// The progress line `track` keeps on standard error while numbers are outstanding (only on a terminal):
/// numbers answered of the total, requests sent to Yamato, and the time left by the politeness schedule.
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

    private func redraw() {
        let all = client.clients.values.map(\.scheduler.statistics)
        let started = all.map(\.started).reduce(0, +)
        let inFlight = all.map(\.inFlight).reduce(0, +)
        state.withLock { state in
            guard !state.stopped, !state.paused, state.answered < total else { return }
            // Ten numbers a request, one request start per interval: what is not yet sent, paced.
            let requestsLeft = (distinct - state.answeredDistinct.count + 9) / 10
            let notStarted = max(0, requestsLeft - inFlight)
            let seconds = Int((Double(notStarted) * (interval / .seconds(1))).rounded(.up))
            let text = Self.line(
                answered: state.answered, total: total, requests: started, secondsLeft: seconds)
            terminal.writeError("\r\u{1B}[K" + text)
            state.shown = true
        }
    }
}
