import Foundation
import Synchronization

/// A deadline for receiving each request, headers and body, that a client trickling one byte at a time
/// cannot extend (libmicrohttpd's own timeout restarts with every byte).
///
/// Each open connection is timed from when it opened, or from when its previous request ended, until its
/// next request has been read; one still reading at the deadline has its socket shut down, which
/// libmicrohttpd sees as the client leaving and closes. The clock of a connection is an atomic in its
/// ``OpenConnection``, so a request starts and stops it without a lock; the set of open connections, which
/// changes only when one opens or closes, is in a `Mutex`. The socket is shut down under that same lock,
/// which the close notification takes, so a descriptor libmicrohttpd has already given back is never
/// touched.
///
/// `@unchecked Sendable`: the open connections are in a `Mutex` (in ``Tracked``); the timer is set up in
/// `init` and only cancelled in `deinit`. With the deadline off there is no timer at all (libdispatch traps when a source
/// that was never resumed is released) and nothing is tracked.
final class ReceiveDeadlines: @unchecked Sendable {
    private let tracked: Tracked
    private let timer: (any DispatchSourceTimer)?

    /// - Parameter seconds: how long a request may take to arrive; 0 turns the deadline off.
    init(seconds: Int) {
        let tracked = Tracked(deadline: UInt64(max(0, seconds)) * 1_000_000_000)
        self.tracked = tracked
        guard seconds > 0 else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "kuroneko.receive-deadlines"))
        self.timer = timer
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        // The timer holds the tracked connections, not this object: a weak reference to it would give it a
        // side table that every request's retain would go through.
        timer.setEventHandler { _ = tracked.sweep() }
        timer.resume()
    }

    deinit {
        timer?.cancel()
    }

    func opened(_ connection: OpenConnection) {
        tracked.opened(connection)
    }

    /// The request is complete: the clock stops until it has been answered.
    func requestRead(_ connection: OpenConnection) {
        connection.waitingSince.store(0, ordering: .relaxed)
    }

    /// The request has been answered: the next one starts its clock.
    func requestEnded(_ connection: OpenConnection) {
        connection.waitingSince.store(max(1, Self.now()), ordering: .relaxed)
    }

    func closed(_ connection: OpenConnection) {
        tracked.closed(connection)
    }

    /// The monotonic clock at its coarse resolution (a few milliseconds), in nanoseconds: the deadline is
    /// counted in seconds, and reading the coarse clock costs less than a precise read, once per request.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Shuts down the sockets of connections that have been receiving a request for longer than the deadline.
    /// - Returns: how many were shut down.
    @discardableResult
    func sweep() -> Int {
        tracked.sweep()
    }

    /// The open connections and the deadline.
    private final class Tracked: Sendable {
        let deadline: UInt64
        private let open = Mutex<[ObjectIdentifier: OpenConnection]>([:])

        init(deadline: UInt64) {
            self.deadline = deadline
        }

        private var isOn: Bool { deadline > 0 }

        func opened(_ connection: OpenConnection) {
            guard isOn else { return }
            open.withLock { $0[ObjectIdentifier(connection)] = connection }
        }

        func closed(_ connection: OpenConnection) {
            guard isOn else { return }
            _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
        }

        func sweep() -> Int {
            let now = ReceiveDeadlines.now()
            return open.withLock { open in
                var count = 0
                for connection in open.values where !connection.shutDown.load(ordering: .relaxed) {
                    let since = connection.waitingSince.load(ordering: .relaxed)
                    guard since != 0, now &- since > deadline else { continue }
                    Glibc.shutdown(connection.socket, Int32(SHUT_RDWR))
                    connection.shutDown.store(true, ordering: .relaxed)
                    count += 1
                }
                return count
            }
        }
    }
}
