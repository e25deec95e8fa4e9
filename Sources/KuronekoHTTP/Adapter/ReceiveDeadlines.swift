import Foundation
import Synchronization

/// A deadline for receiving each request, headers and body, that a client trickling one byte at a time
/// cannot extend (libmicrohttpd's own timeout restarts with every byte).
///
/// Each open connection is timed from when it opened, or from when its previous request ended, until its
/// next request has been read; one still reading at the deadline has its socket shut down, which
/// libmicrohttpd sees as the client leaving and closes. The socket is shut down under the same lock that
/// the close notification takes, so a descriptor libmicrohttpd has already given back is never touched.
///
/// `@unchecked Sendable`: the entries are in a `Mutex`; the timer is set up in `init` and only cancelled in
/// `deinit`. With the deadline off there is no timer at all (libdispatch traps when a source that was never
/// resumed is released).
final class ReceiveDeadlines: @unchecked Sendable {
    private struct Entry {
        let socket: Int32
        /// When it began waiting for a request; `nil` while a request is being answered.
        var waitingSince: UInt64?
        var shutDown = false
    }

    private let deadline: UInt64
    private let entries = Mutex<[UInt: Entry]>([:])
    private let timer: (any DispatchSourceTimer)?

    /// - Parameter seconds: how long a request may take to arrive; 0 turns the deadline off.
    init(seconds: Int) {
        deadline = UInt64(max(0, seconds)) * 1_000_000_000
        guard seconds > 0 else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "kuroneko.receive-deadlines"))
        self.timer = timer
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    deinit {
        timer?.cancel()
    }

    func opened(_ connection: UInt, socket: Int32) {
        let now = DispatchTime.now().uptimeNanoseconds
        entries.withLock { $0[connection] = Entry(socket: socket, waitingSince: now) }
    }

    /// The request is complete: the clock stops until it has been answered.
    func requestRead(_ connection: UInt) {
        entries.withLock { $0[connection]?.waitingSince = nil }
    }

    /// The request has been answered: the next one starts its clock.
    func requestEnded(_ connection: UInt) {
        let now = DispatchTime.now().uptimeNanoseconds
        entries.withLock { $0[connection]?.waitingSince = now }
    }

    func closed(_ connection: UInt) {
        _ = entries.withLock { $0.removeValue(forKey: connection) }
    }

    /// Shuts down the sockets of connections that have been receiving a request for longer than the deadline.
    /// - Returns: how many were shut down.
    @discardableResult
    func sweep() -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            var count = 0
            for (connection, entry) in entries where !entry.shutDown {
                guard let since = entry.waitingSince, now &- since > deadline else { continue }
                Glibc.shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[connection]?.shutDown = true
                count += 1
            }
            return count
        }
    }
}
