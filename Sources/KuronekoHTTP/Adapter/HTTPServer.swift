import CMicroHTTPD
import Foundation
import Synchronization

/// Serves an ``HTTPApplication`` over GNU libmicrohttpd: an adapter that only moves bytes.
///
/// libmicrohttpd runs a small pool of worker threads on epoll. A request the application answers at once
/// (``HTTPAnswer/now(_:)``) is answered on the worker thread; for any other the connection is suspended, the
/// work runs in a task, and the connection is resumed with its answer.
public final class HTTPServer: Sendable {
    /// Limits and threads, with the defaults `kuroneko serve` and `kuroneko simulate` use.
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port; ``HTTPServer/port`` tells which.
        public var port: UInt16
        public var threads: Int
        /// Idle and slow connections are closed after this many seconds.
        public var connectionTimeoutSeconds: Int
        /// Larger request bodies are refused with 413.
        public var maxBodyBytes: Int
        /// Routes that take a larger body than ``maxBodyBytes``, by exact path (a saved mail), with their limit.
        public var largerBodies: [String: Int] = [:]
        /// The largest body anyone may send before the application knows who they are: a body declared larger
        /// (or sent chunked) is let in only when its head names a caller the application knows
        /// (``HTTPApplication/sender(of:)``); a stranger's is answered at once, unread, and the connection closed.
        public var anonymousBodyBytes = 64 * 1024
        /// The bytes of bodies larger than ``anonymousBodyBytes`` held at once, server-wide; past it such a
        /// request is answered 503 with `Retry-After` before its body is read.
        public var bodyBudgetBytes = 64 * 1024 * 1024
        /// The most of ``bodyBudgetBytes`` held by callers whose credential is not confirmed yet.
        public var unconfirmedBodyBytes = 16 * 1024 * 1024
        /// Connections allowed at once from one client address; requests on more are answered 503.
        public var connectionsPerAddress: Int
        /// Memory for one connection's request line and headers; larger headers are refused with 431.
        public var headerMemoryBytes: Int
        /// Connections open at once, from all clients; libmicrohttpd closes more as they arrive. `nil`: as
        /// many as the process's open-file limit allows (raised to its hard limit), less 128 for everything
        /// else, at most 65,536.
        public var maxConnections: Int?
        /// How long a request may take to arrive, headers and body, counted from when the connection opened
        /// or its previous request was answered; a connection still receiving then is closed. 0: no limit.
        public var receiveTimeoutSeconds: Int
        /// Serve https with this certificate and key (TLS 1.2 and 1.3), or plain http when `nil`.
        public var tls: TLSFiles?

        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int = 2, connectionTimeoutSeconds: Int = 30,
            maxBodyBytes: Int = 64 * 1024, connectionsPerAddress: Int = 512, headerMemoryBytes: Int = 32 * 1024,
            maxConnections: Int? = nil, receiveTimeoutSeconds: Int = 10
        ) {
            self.maxConnections = maxConnections
            self.receiveTimeoutSeconds = receiveTimeoutSeconds
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.maxBodyBytes = maxBodyBytes
            self.connectionsPerAddress = connectionsPerAddress
            self.headerMemoryBytes = headerMemoryBytes
        }
    }

    /// The port the server listens on.
    public let port: UInt16
    /// The bytes of large bodies held now, against their limits.
    public let bodyBudget: BodyBudget
    private let daemon: DaemonHandle
    private let state: ServerState

    /// Starts listening.
    /// - Throws: ``ServerStartError`` when the host is not an address or a name that resolves, or the port cannot
    ///   be bound.
    /// - Parameter bodyBudget: the budget of large bodies, when its holder shows it; else one made from the
    ///   configuration.
    public init(
        configuration: Configuration, application: any HTTPApplication, bodyBudget: BodyBudget? = nil
    ) throws(ServerStartError) {
        let address = try ListenAddress.resolve(configuration.host)
        if let files = configuration.tls {
            guard kuroneko_tls_supported() != 0 else {
                throw ServerStartError(message: "this libmicrohttpd was built without TLS; https cannot be served")
            }
            do {
                tlsLine = try TLSCertificates.shared.install(files)
            } catch {
                throw ServerStartError(message: error.message)
            }
        } else {
            tlsLine = nil
        }
        let state = ServerState(
            application: application, maxBodyBytes: configuration.maxBodyBytes,
            largerBodies: configuration.largerBodies, connectionsPerAddress: configuration.connectionsPerAddress,
            receiveDeadlines: ReceiveDeadlines(seconds: configuration.receiveTimeoutSeconds),
            anonymousBodyBytes: configuration.anonymousBodyBytes,
            bodyBudget: bodyBudget
                ?? BodyBudget(
                    total: configuration.bodyBudgetBytes, unconfirmedShare: configuration.unconfirmedBodyBytes))
        self.bodyBudget = state.bodyBudget
        let connectionLimit = Self.connectionLimit(configuration.maxConnections)
        self.connectionLimit = connectionLimit
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        if address.isIPv6Any { flags |= MHD_USE_DUAL_STACK.rawValue }
        let started = address.withSocketAddress(port: configuration.port) { socketAddress in
            kuroneko_start_daemon(
                UInt32(flags), socketAddress, UInt32(max(1, configuration.threads)),
                UInt32(configuration.connectionTimeoutSeconds), UInt32(connectionLimit),
                UInt32(configuration.connectionsPerAddress + Self.perAddressMargin), configuration.headerMemoryBytes,
                handleRequest,
                Unmanaged.passUnretained(state).toOpaque(), requestCompleted, connectionChanged, requestTargetRead,
                Unmanaged.passUnretained(state).toOpaque(),
                configuration.tls == nil ? nil : tlsCertificateForHandshake, Self.tlsPriorities)
        }
        guard let started else {
            throw ServerStartError(
                message: "cannot listen on \(address.urlHost):\(configuration.port); is the port in use?")
        }
        daemon = DaemonHandle(started)
        self.state = state
        port = kuroneko_daemon_port(started)
        urlHost = address.urlHost
    }

    /// The address listened on as a URL writes it: `127.0.0.1`, `[::1]`.
    public let urlHost: String

    /// `https` when serving TLS, else `http`.
    public var scheme: String { tlsLine == nil ? "http" : "https" }

    /// What TLS serves, in one line (`tls: serving … valid until …`), when it does.
    public let tlsLine: String?

    /// TLS 1.3 and 1.2 only, GnuTLS's default ciphers for them.
    static let tlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

    /// The connections allowed at once from all clients.
    public let connectionLimit: Int

    /// Connections from one address beyond its cap that are still accepted, to be answered 503; libmicrohttpd
    /// itself closes any more at once, so they never hold a slot.
    static let perAddressMargin = 16

    /// Raises the soft limit on open files to the hard limit, and sizes the connection limit to it: the
    /// configured limit when it fits, else what the descriptors allow less 128 for everything else.
    private static func connectionLimit(_ configured: Int?) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return configured ?? 1_020 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let available = Int(min(limit.rlim_cur, 1 << 20)) - 128
        return max(16, min(configured ?? 65_536, available))
    }

    /// Refuses new connections from now on: the listening socket is closed, so clients get a refusal at
    /// once rather than waiting in the backlog. Requests already in flight go on.
    public func stopAccepting() {
        daemon.quiesce()
    }

    /// Stops: refuses new connections at once (the listening socket is closed), lets the requests in flight
    /// finish until `deadline`, then answers those still waiting 503 and closes every connection.
    /// - Returns: the requests that were cut off at the deadline.
    @discardableResult
    public func shutdown(deadline: Duration = .seconds(10)) async -> Int {
        daemon.quiesce()
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while state.inFlight > 0, clock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let cutOff = state.inFlight
        if cutOff > 0 {
            state.forceStop()
            // Each waiting request answers 503 within one check interval; a connection still receiving its
            // request is not suspended and closes with the daemon. A resumed connection is sent its answer
            // by a worker thread some time after the resume, so the wait is for the requests to complete
            // (their answers sent), not only for the resumes: stopping the daemon first would close them
            // unanswered.
            let bound = clock.now + .seconds(2)
            while state.suspended > 0 || state.inFlight > 0, clock.now < bound {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        daemon.stop(whenNothingSuspended: state)
        return cutOff
    }

    deinit {
        daemon.stop(whenNothingSuspended: state)
    }
}

/// Why a server could not start, in one line.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// The daemon pointer, stopped exactly once.
///
/// libmicrohttpd's quiesce and stop are called inside `state`'s lock, one at a time.
private final class DaemonHandle: Sendable {
    /// `@unchecked Sendable`: the C pointer is only touched inside the Mutex that holds it.
    private struct State: @unchecked Sendable {
        var daemon: OpaquePointer?
        var quiesced = false
    }

    private let state: Mutex<State>

    init(_ daemon: OpaquePointer) {
        state = Mutex(State(daemon: daemon))
    }

    /// Stops accepting: libmicrohttpd hands back the listening socket, which is closed so that new clients
    /// are refused at once instead of waiting in the backlog.
    func quiesce() {
        state.withLock { state in
            guard let daemon = state.daemon, !state.quiesced else { return }
            state.quiesced = true
            let listener = MHD_quiesce_daemon(daemon)
            if listener >= 0 { close(listener) }
        }
    }

    /// Stops the daemon, unless a connection is still suspended: stopping then is undefined behaviour in
    /// libmicrohttpd, so the daemon is left running instead, and the state its callbacks use is kept alive
    /// for good (its threads end with the process).
    func stop(whenNothingSuspended server: ServerState) {
        state.withLock { state in
            guard let daemon = state.daemon else { return }
            guard server.suspended == 0 else {
                _ = Unmanaged.passRetained(server)
                return
            }
            MHD_stop_daemon(daemon)
            state.daemon = nil
        }
    }
}

/// What the callbacks share: the application, the limits, and counters kept with atomics (they change on
/// every request); the open connections per client address in a `Mutex` (they change per connection).
final class ServerState: Sendable {
    let application: any HTTPApplication
    let maxBodyBytes: Int
    let largerBodies: [String: Int]
    let connectionsPerAddress: Int
    let receiveDeadlines: ReceiveDeadlines
    let anonymousBodyBytes: Int
    let bodyBudget: BodyBudget
    private let requests = Atomic<Int>(0)
    private let suspendedConnections = Atomic<Int>(0)
    private let forcing = Atomic<Bool>(false)
    private let connections = Mutex<[UInt64: Int]>([:])

    init(
        application: any HTTPApplication, maxBodyBytes: Int, largerBodies: [String: Int] = [:],
        connectionsPerAddress: Int, receiveDeadlines: ReceiveDeadlines, anonymousBodyBytes: Int = 64 * 1024,
        bodyBudget: BodyBudget = BodyBudget(total: 64 * 1024 * 1024, unconfirmedShare: 16 * 1024 * 1024)
    ) {
        self.receiveDeadlines = receiveDeadlines
        self.anonymousBodyBytes = anonymousBodyBytes
        self.bodyBudget = bodyBudget
        self.application = application
        self.maxBodyBytes = maxBodyBytes
        self.largerBodies = largerBodies
        self.connectionsPerAddress = connectionsPerAddress
    }

    /// The largest body the path may carry (the target without its query).
    func maxBodyBytes(for target: UnsafePointer<CChar>?) -> Int {
        guard !largerBodies.isEmpty, let target else { return maxBodyBytes }
        let path = String(cString: target).split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        return largerBodies[path] ?? maxBodyBytes
    }

    /// Counts a connection opening (+1) or closing (-1) from a client; returns how many it now has open.
    @discardableResult
    func adjustConnections(of client: UInt64, by change: Int) -> Int {
        connections.withLock { connections in
            let open = (connections[client] ?? 0) + change
            connections[client] = open > 0 ? open : nil
            return open
        }
    }

    /// Requests begun and not yet completed.
    var inFlight: Int { requests.load(ordering: .relaxed) }

    /// Connections suspended while their request's work runs.
    var suspended: Int { suspendedConnections.load(ordering: .acquiring) }

    func adjustSuspended(by change: Int) {
        suspendedConnections.add(change, ordering: .releasing)
    }

    /// Set once the drain deadline has passed: waiting requests answer 503 at once.
    var isForcingStop: Bool { forcing.load(ordering: .acquiring) }

    func forceStop() {
        forcing.store(true, ordering: .releasing)
    }

    func begin() {
        requests.add(1, ordering: .relaxed)
    }

    func end() {
        requests.subtract(1, ordering: .relaxed)
    }
}

/// One open connection, from libmicrohttpd's "started" notification to its "closed" one, kept as the
/// connection's socket context: what every request on it needs without a lookup.
final class OpenConnection: Sendable {
    let socket: Int32
    /// The client address's key, for the per-client count.
    let client: UInt64
    /// Opened beyond the per-client cap: its requests are answered 503.
    let overCap: Bool
    /// When it began waiting for its next request, in monotonic nanoseconds; 0 while one is answered.
    let waitingSince: Atomic<UInt64>
    /// Its socket was shut down for missing the receive deadline.
    let shutDown = Atomic<Bool>(false)
    /// The current request's target as it arrived: where libmicrohttpd keeps it, and its length up to the
    /// first NUL byte; or `UInt.max` when it held a raw control character. Written when the request line is
    /// read and read when the headers are in, both on the connection's worker thread.
    let rawTarget = Atomic<UInt>(0)
    let rawTargetLength = Atomic<Int>(0)

    init(socket: Int32, client: UInt64, overCap: Bool) {
        self.socket = socket
        self.client = client
        self.overCap = overCap
        waitingSince = Atomic(max(1, ReceiveDeadlines.now()))
    }
}

/// One request's state across libmicrohttpd's calls of the access handler, for the requests that have any:
/// one with a body, one refused when its headers arrived, or one whose answer comes later. A request without
/// a body answered at once has none (see `headersChecked`).
///
/// `@unchecked Sendable`: the worker thread and the responding task never touch it at the same time. The
/// task writes `response` while the connection is suspended and resumes it afterwards; libmicrohttpd calls
/// the handler again only after the resume.
final class ReceivedRequestState: @unchecked Sendable {
    var body = Data()
    var bodyTooLarge = false
    /// The body's limit when it is not the route's: a stranger's allowance.
    var bodyLimit: Int?
    /// A stranger's refusal, sent once the body it was not allowed to send has ended (a chunked body, whose
    /// size the headers do not tell).
    var strangerRefusal: HTTPResponse?
    /// The bytes this body holds of the server's ``BodyBudget``, given back when the request completes.
    var reserved = 0
    var unconfirmed = false
    /// A chunked body grew past what the budget could give it.
    var overBudget = false
    /// A stranger's chunked body grew past the anonymous allowance.
    var overAllowance = false
    /// Refused when its headers arrived (``RequestFraming``); nothing more is done with it.
    var refused = false
    var response: HTTPResponse?
}
