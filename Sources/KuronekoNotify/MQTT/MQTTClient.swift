import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What happens on the connection to the broker, in order.
public enum MQTTEvent: Sendable, Equatable {
    /// A connection is open (the first, or a new one after a loss): what the broker should keep is published now.
    case connected
    /// A message on a subscribed topic.
    case message(MQTTMessage)
    /// The connection was lost or refused (one line why); the client connects again by itself after `retryIn`
    /// seconds (``MQTTReconnect``).
    case disconnected(String, retryIn: Double)
}

/// An MQTT 3.1.1 client on libmosquitto (the broker's authors' library, Debian's libmosquitto1): one connection at
/// a time (``MosquittoConnection``, its handle owned by one thread of this client's: nothing blocks the
/// cooperative pool), over TCP or TLS. It connects with a clean session and a will, subscribes, sends what
/// ``publish(_:)`` queues at QoS 0 (libmosquitto answers the broker's pings), and after a loss connects again
/// (``MQTTReconnect``: 1 s, doubling to 30 s, from 1 s again only after a connection that stayed up a minute).
/// Bounded: at most ``queueLimit`` messages wait here and at most ``batch`` in libmosquitto; more renews the
/// connection (its `connected` event tells the owner to publish everything again, which is what a retained state
/// needs anyway); a message from the broker over 256 KiB ends the connection (libmosquitto reads a packet whole
/// before handing it over: MQTT caps one at 256 MiB).
public final class MQTTClient: Sendable {
    /// The most messages waiting to be written.
    public static let queueLimit = 10_000
    /// The largest message taken from the broker.
    static let maximumPacket = 256 << 10
    /// The most messages handed to libmosquitto at once (more wait here until it has written them).
    static let batch = 1_000

    private struct State {
        var outgoing: [MQTTMessage] = []
        var connected = false
        var overflowed = false
        var started = false
        var stopping = false
        var ended = false
        var last: [MQTTMessage] = []
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let settings: MQTTSettings
    private let subscriptions: [String]
    private let will: MQTTMessage?
    /// A pipe that wakes the thread when there is something to write or it should stop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The most messages from the broker waiting to be read by the owner; more are dropped (a flood of the same
    /// birth message needs one answer). Connections opened and lost are never dropped.
    public static let messagesWaiting = 1_000
    private let waitingMessages = Atomic(0)
    private let dropped = Atomic(0)

    /// Messages from the broker dropped since the start because ``messagesWaiting`` were waiting.
    public var messagesDropped: Int { dropped.load(ordering: .relaxed) }
    private let stream: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation

    /// The connection's events, in order; ends when the client has stopped. Read by one owner.
    public var events: some AsyncSequence<MQTTEvent, Never> & Sendable {
        stream.map { [self] event in
            if case .message = event { waitingMessages.subtract(1, ordering: .relaxed) }
            return event
        }
    }

    public init(settings: MQTTSettings, subscriptions: [String], will: MQTTMessage?) {
        self.settings = settings
        self.subscriptions = subscriptions
        self.will = will
        var ends: [Int32] = [0, 0]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        for end in ends where end >= 0 {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        // Unbounded in form only: messages are bounded by ``messagesWaiting``; the rest are a connection's events,
        // one per attempt at most.
        (stream, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Starts the thread that connects (once).
    public func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopping
        }
        guard first else { return }
        let thread = Thread { [self] in run() }
        thread.name = "kuroneko.mqtt"
        thread.start()
    }

    /// Queues messages for the open connection. - Returns: `false` when none is open (a `connected` event
    /// comes when one is: publish then) or the queue was full (the connection is renewed, likewise).
    @discardableResult
    public func publish(_ messages: [MQTTMessage]) -> Bool {
        guard !messages.isEmpty else { return true }
        let (queued, renew) = state.withLock { state -> (Bool, Bool) in
            guard state.connected, !state.stopping, !state.overflowed else { return (false, false) }
            guard state.outgoing.count + messages.count <= Self.queueLimit else {
                state.overflowed = true
                state.outgoing = []
                return (false, true)
            }
            state.outgoing += messages
            return (true, false)
        }
        // Woken only for work: a publish between connections never cuts the pause before the next attempt short.
        if queued || renew { wake() }
        return queued
    }

    /// Sends `last` (and DISCONNECT, so the broker does not send the will) on the open connection, closes it and
    /// stops; returns when the thread has ended (at most the timeout for writing, or at once when none runs).
    public func stop(last: [MQTTMessage]) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                state.stopping = true
                state.last = last
                if state.ended || !state.started { return true }
                state.waiting.append(waiter)
                return false
            }
            if ended {
                continuation.finish()
                waiter.resume()
            } else {
                wake()
            }
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    // MARK: The thread

    private func run() {
        var reconnect = MQTTReconnect()
        while !stopping {
            var openedAt: Double?
            let reason = converse(opened: { openedAt = Self.uptime })
            state.withLock { state in
                state.connected = false
                state.outgoing = []
            }
            if stopping { break }
            let pause = reconnect.ended(lasted: openedAt.map { Self.uptime - $0 })
            continuation.yield(.disconnected(reason, retryIn: pause))
            waitForWake(upTo: pause)
        }
        continuation.finish()
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// One connection from CONNECT to its end: returns `""` when stopped, else why it ended; `opened` is called
    /// once the broker has accepted it.
    private func converse(opened: () -> Void) -> String {
        let connection: MosquittoConnection
        do {
            connection = try MosquittoConnection(
                settings: settings, subscriptions: subscriptions, will: will, maximumPayload: Self.maximumPacket)
        } catch {
            return error.description
        }
        let deadline = Self.uptime + settings.timeout
        var stopSent: Double?
        while true {
            drainWake()
            let heard = connection.turn()
            if let reason = connection.ended { return stopSent == nil ? reason : "" }
            if stopSent == nil, !connection.accepted, Self.uptime > deadline {
                return "\(settings): no answer within \(Int(settings.timeout)) s"
            }
            if connection.accepted, !state.withLock({ $0.connected }) {
                opened()
                state.withLock {
                    $0.connected = true
                    $0.overflowed = false
                }
                continuation.yield(.connected)
            }
            // After `connected`: the owner hears the connection open before what came on it.
            for message in heard {
                guard waitingMessages.load(ordering: .relaxed) < Self.messagesWaiting else {
                    dropped.add(1, ordering: .relaxed)
                    continue
                }
                waitingMessages.add(1, ordering: .relaxed)
                continuation.yield(.message(message))
            }
            let (batch, stopping, last, overflowed) = state.withLock { state -> ([MQTTMessage], Bool, [MQTTMessage], Bool) in
                let room = connection.wantsWrite ? 0 : Self.batch
                let batch = Array(state.outgoing.prefix(room))
                state.outgoing.removeFirst(batch.count)
                return (batch, state.stopping, state.last, state.overflowed)
            }
            if overflowed {
                return "more than \(Self.queueLimit) messages waited: the connection is renewed and all sent again"
            }
            for message in batch { connection.publish(message) }
            if stopping {
                // Everything last, then DISCONNECT; written within the timeout, or given up.
                if stopSent == nil {
                    if connection.accepted {
                        for message in last { connection.publish(message) }
                        connection.disconnect()
                    }
                    stopSent = Self.uptime
                }
                if !connection.accepted || connection.socket < 0 || Self.uptime - (stopSent ?? 0) > settings.timeout { return "" }
            }
            if connection.socket < 0 { return "\(settings): the connection closed" }
            if !batch.isEmpty || connection.hasBufferedInput || (state.withLock { !$0.outgoing.isEmpty } && !connection.wantsWrite) {
                continue
            }
            var ready = [
                pollfd(fd: connection.socket, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&ready, 2, 1_000)
        }
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
    }

    private func waitForWake(upTo seconds: Double) {
        var ready = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, Int32(seconds * 1_000))
        drainWake()
    }

    private static var uptime: Double { ProcessInfo.processInfo.systemUptime }
}
