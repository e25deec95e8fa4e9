import Dispatch
import Foundation
import Synchronization

/// SIGHUP, taken on a dispatch queue of its own (it no longer ends the process): `systemctl reload` and a
/// certificate renewal's hook send it to have the server read its certificate and key again.
public final class ReloadSignal: Sendable {
    private let source: SourceHolder

    /// Calls `reload` on each SIGHUP from now on, for as long as the value lives.
    public init(reload: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "kuroneko.reload"))
        source.setEventHandler(handler: reload)
        source.resume()
        self.source = SourceHolder(source)
    }
}

/// Keeps the source alive, and cancels it when dropped.
private final class SourceHolder: Sendable {
    private let source: Mutex<(any DispatchSourceSignal)?>
    init(_ source: sending any DispatchSourceSignal) { self.source = Mutex(source) }
    deinit { source.withLock { $0?.cancel() } }
}
