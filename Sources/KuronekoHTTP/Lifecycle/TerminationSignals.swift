import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM, delivered to one dispatch queue instead of whichever thread the kernel picks.
public enum TerminationSignals {
    /// Blocks SIGINT and SIGTERM for this thread and every thread started after it (libmicrohttpd's workers
    /// included); call it before starting a server, then ``wait()``.
    public static func block() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Returns when SIGINT or SIGTERM arrives, with the signal's name (a listener of its own, made now).
    public static func wait() async -> String {
        await SignalListener().next()
    }
}

/// SIGINT and SIGTERM as they arrive, from the moment it is made: make it before the server says it is
/// ready, so that a signal sent right after readiness is never missed, then ask ``next()`` for each one
/// (the first starts the drain, a second ends the process).
public final class SignalListener: Sendable {
    private struct State {
        var arrived: [String] = []
        var waiting: CheckedContinuation<String, Never>?
    }

    /// The signals that came and the caller waiting, in an object of its own the sources' handlers hold.
    private final class Inbox: Sendable {
        let state = Mutex(State())
    }

    private let inbox = Inbox()
    private let sources: SourceBox

    public init() {
        let queue = DispatchQueue(label: "kuroneko.signals")
        var made: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [inbox] in
                let waiter = inbox.state.withLock { state -> CheckedContinuation<String, Never>? in
                    if let waiter = state.waiting {
                        state.waiting = nil
                        return waiter
                    }
                    // Kept until asked for; two are all anyone asks for (the drain, then the exit).
                    if state.arrived.count < 2 { state.arrived.append(name) }
                    return nil
                }
                waiter?.resume(returning: name)
            }
            source.resume()
            made.append(source)
        }
        sources = SourceBox(made)
    }

    /// The next signal: one that came already, or the next to come. One caller at a time.
    public func next() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let ready = inbox.state.withLock { state -> String? in
                if !state.arrived.isEmpty { return state.arrived.removeFirst() }
                state.waiting = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Keeps the signal sources alive for as long as their listener.
private final class SourceBox: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    init(_ sources: sending [any DispatchSourceSignal]) {
        self.sources = Mutex(sources)
    }
}
