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

    /// Returns when SIGINT or SIGTERM arrives, with the signal's name.
    public static func wait() async -> String {
        let queue = DispatchQueue(label: "kuroneko.signals")
        let box = SourceBox()
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.resume(returning: name) }
                source.resume()
                box.sources.append(source)
            }
        }
    }
}

/// Keeps the signal sources alive for as long as the process waits.
///
/// `@unchecked Sendable`: written once, before any signal can arrive, and never read.
private final class SourceBox: @unchecked Sendable {
    var sources: [any DispatchSourceSignal] = []
}

/// Resumes a continuation at most once, however many signals arrive.
private final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<String, Never>?>

    init(_ continuation: CheckedContinuation<String, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: String) {
        let pending = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: value)
    }
}
