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
    /// The connection was lost or refused (one line why); the client connects again by itself.
    case disconnected(String)
}

/// An MQTT 3.1.1 client of the project's own (no library): one connection at a time on a thread of its own
/// (blocking socket calls never run on the cooperative pool), over TCP or TLS (``ClientConnection``). It
/// connects with a clean session and a will, subscribes, sends what ``publish(_:)`` queues at QoS 0, answers the
/// broker's pings, and after a loss connects again (``MQTTReconnect``: 1 s, doubling to 30 s, from 1 s again only
/// after a connection that stayed up a minute). Bounded: at most ``queueLimit``
/// messages wait; more renews the connection (its `connected` event tells the owner to publish everything again,
/// which is what a retained state needs anyway); a packet from the broker over 256 KiB ends the connection.
public final class MQTTClient: Sendable {
    /// The most messages waiting to be written.
    public static let queueLimit = 10_000
    /// The largest packet read from the broker.
    static let maximumPacket = 256 << 10

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
    /// The connection's events; ends when the client has stopped.
    public let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation

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
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .bufferingNewest(1_000))
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
            var reason = ""
            var openedAt: Double?
            do {
                try converse(opened: { openedAt = Self.uptime })
            } catch {
                // A connection's error names the host already.
                reason = error is ConnectionError ? "\(error)" : "\(settings): \(error)"
            }
            state.withLock { state in
                state.connected = false
                state.outgoing = []
            }
            if stopping { break }
            continuation.yield(.disconnected(reason))
            waitForWake(upTo: reconnect.ended(lasted: openedAt.map { Self.uptime - $0 }))
        }
        continuation.finish()
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// One connection from CONNECT to its end: returns when stopped, throws when it is lost; `opened` is called
    /// once the broker has accepted it.
    private func converse(opened: () -> Void) throws {
        let connection = try ClientConnection(
            host: settings.host, port: settings.port, timeout: settings.timeout, tls: settings.tls,
            caFile: settings.caFile)
        let connect = MQTTPacket.connect(
            clientID: settings.clientID, keepAlive: settings.keepAlive, user: settings.user,
            password: settings.password, will: will)
        try connection.write(connect.encoded)
        var reader = MQTTPacketReader(maximumPacket: Self.maximumPacket)
        var answer: MQTTPacket?
        while answer == nil {
            reader.feed(try connection.read(upTo: 4_096))
            answer = try reader.next()
        }
        guard case .connectAcknowledged(let code) = answer else {
            throw MQTTProtocolError(description: "the broker answered CONNECT with another packet")
        }
        guard code == 0 else { throw MQTTProtocolError(description: "the broker refused the connection: \(MQTTPacket.refusal(code))") }
        if !subscriptions.isEmpty {
            try connection.write(MQTTPacket.subscribe(packetID: 1, filters: subscriptions).encoded)
        }
        connection.makeNonBlocking()
        opened()
        state.withLock {
            $0.connected = true
            $0.overflowed = false
        }
        continuation.yield(.connected)
        let keepAlive = Double(settings.keepAlive)
        var lastSent = Self.uptime
        var pingSent: Double?
        while true {
            drainWake()
            let (batch, stopping, last, overflowed) = state.withLock { state in
                defer { state.outgoing = [] }
                return (state.outgoing, state.stopping, state.last, state.overflowed)
            }
            if overflowed {
                throw MQTTProtocolError(
                    description: "more than \(Self.queueLimit) messages waited: the connection is renewed and all sent again")
            }
            for message in batch { try connection.write(MQTTPacket.publish(message, packetID: nil).encoded) }
            if !batch.isEmpty { lastSent = Self.uptime }
            if stopping {
                for message in last { try connection.write(MQTTPacket.publish(message, packetID: nil).encoded) }
                try connection.write(MQTTPacket.disconnect.encoded)
                return
            }
            // What the broker sent, a bounded amount at a time so writing is never starved.
            var chunks = 0
            while chunks < 16, let bytes = try connection.readAvailable(upTo: 64 << 10) {
                chunks += 1
                reader.feed(bytes)
                while let packet = try reader.next() {
                    switch packet {
                    case .publish(let message, let packetID):
                        if let packetID { try connection.write(MQTTPacket.publishAcknowledged(packetID: packetID).encoded) }
                        continuation.yield(.message(message))
                    case .pingResponse: pingSent = nil
                    case .subscribeAcknowledged, .publishAcknowledged: break
                    default: throw MQTTProtocolError(description: "the broker sent a packet out of place")
                    }
                }
            }
            let now = Self.uptime
            if let pingSent, now - pingSent > keepAlive {
                throw MQTTProtocolError(description: "no answer to a ping for \(Int(keepAlive)) s")
            }
            if pingSent == nil, now - lastSent >= keepAlive / 2 {
                try connection.write(MQTTPacket.pingRequest.encoded)
                pingSent = now
                lastSent = now
            }
            if chunks == 16 || connection.hasBufferedInput { continue }
            var ready = [
                pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
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
