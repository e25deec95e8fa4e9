import CPostgres
import Foundation
import KuronekoStore
import Synchronization

/// Listens on a PostgreSQL channel on a connection and a thread of its own, handing each notification's
/// payload to `handler` (on that thread). A lost connection is made again every second until it works, and
/// listening resumes; notifications sent meanwhile are missed (the shared cache they feed also ages out by
/// its TTL). ``stop()`` ends it within a second.
public final class PostgresListener: Sendable {
    private let stopped = StopFlag()
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - failures: told of the first failure to connect or listen after listening worked (or at the start),
    ///     and of a connection lost.
    ///   - listening: told each time `LISTEN` has worked (at first, and after a lost connection is made again).
    public init(
        url: String, channel: String, failures: FailureRun = FailureRun { _ in },
        listening: @escaping @Sendable () -> Void = {}, handler: @escaping @Sendable (String) -> Void
    ) {
        let stopped = self.stopped
        let finished = self.finished
        Thread.detachNewThread {
            defer { finished.signal() }
            while !stopped.isSet {
                do {
                    let connection = try PostgresConnection(url: url)
                    try connection.execute("LISTEN \(channel)")
                    failures.worked()
                    listening()
                    connection.receiveNotifications(until: stopped, handler)
                    if !stopped.isSet { failures.failed(PostgresListenerLost(channel: channel)) }
                } catch {
                    failures.failed(error)
                }
                if !stopped.isSet { Thread.sleep(forTimeInterval: 1) }
            }
        }
    }

    public func stop() {
        stopped.set()
        finished.wait()
    }
}

extension PostgresConnection {
    /// Waits on the socket (a second at most, to see `stop`) and hands over every notification; returns
    /// when the connection breaks or `stop` is set.
    func receiveNotifications(until stop: StopFlag, _ handler: (String) -> Void) {
        while !stop.isSet {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { return }
            let ready = poll(&descriptor, 1, 1_000)
            if ready < 0, errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(handle) == 1 else { return }
            while let notification = PQnotifies(handle) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                handler(payload)
            }
            guard isHealthy else { return }
        }
    }
}

/// The listening connection broke; it is made again every second.
struct PostgresListenerLost: Error, CustomStringConvertible {
    let channel: String
    var description: String { "the connection listening on \(channel) was lost; listening again" }
}

/// A flag one thread sets and another reads.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() {
        value.store(true, ordering: .releasing)
    }
}
