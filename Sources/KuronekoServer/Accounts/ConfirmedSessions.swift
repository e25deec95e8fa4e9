import Foundation
import Kuroneko
import Synchronization

/// Sessions the gate let in lately, remembered by their stored hash so that a large body from a signed-in browser
/// is let in before it is read (``APIKeyMiddleware/sender(of:)``); the request itself is still checked against
/// the database by the ``SessionGate``. Bounded: at most ``capacity`` sessions, each for ``lifetime`` after it was
/// last let in; a session signed out is forgotten at once here, and on other servers within the lifetime (it
/// gains nothing meanwhile but the larger body's room, which the gate then refuses).
public final class ConfirmedSessions: Sendable {
    public static let capacity = 4_096
    public static let lifetime = Duration.seconds(600)
    private let seen = Mutex<[Data: Duration]>([:])
    /// Whose uptime says when a session was let in (the server's clock; a manual one in tests).
    private let clock: any TrackingClock

    public init(clock: any TrackingClock = SystemClock()) {
        self.clock = clock
    }

    /// Notes that the session with this token was let in now.
    func confirm(_ token: String) {
        let now = clock.uptime
        seen.withLock { seen in
            if seen.count >= Self.capacity {
                seen = seen.filter { now - $0.value < Self.lifetime }
                if seen.count >= Self.capacity, let oldest = seen.min(by: { $0.value < $1.value }) {
                    seen[oldest.key] = nil
                }
            }
            seen[SessionCookie.stored(token)] = now
        }
    }

    func forget(_ token: String) {
        _ = seen.withLock { $0.removeValue(forKey: SessionCookie.stored(token)) }
    }

    /// Whether the session with this token was let in within the lifetime.
    func isConfirmed(_ token: String) -> Bool {
        let hash = SessionCookie.stored(token)
        let now = clock.uptime
        return seen.withLock { seen in seen[hash].map { now - $0 < Self.lifetime } ?? false }
    }
}
