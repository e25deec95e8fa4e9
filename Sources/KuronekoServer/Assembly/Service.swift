import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// A long-running part of the server (the poller, the deliverer, the key ring's refresh, the stream of
/// shipments other servers record), named for the log and `/readyz`: a swift-service-lifecycle `Service` whose
/// `run()` works until its task is cancelled, then returns. Returning or throwing at any other time ends the
/// server (see ``ServiceSupervisor``).
public protocol BackgroundService: ServiceLifecycle.Service {
    var name: String { get }
}

/// A named service made of a closure.
struct NamedService: BackgroundService {
    let name: String
    let body: @Sendable () async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }

    func run() async throws { try await body() }
}

/// What each background service is doing, as `/readyz` shows it.
public final class ServiceStates: Sendable {
    public enum State: Sendable, Equatable {
        case starting, running, stopped
        /// Returned while the server ran: its work is no longer done, so the server stops.
        case returned
        /// Threw: the error's words.
        case failed(String)

        /// `running`, `stopped`, `returned`, `failed: …`.
        public var text: String {
            switch self {
            case .starting: "starting"
            case .running: "running"
            case .stopped: "stopped"
            case .returned: "returned"
            case .failed(let reason): "failed: \(reason)"
            }
        }

        /// Ended on its own: the server cannot go on as configured.
        public var endedOnItsOwn: Bool {
            switch self {
            case .returned, .failed: true
            default: false
            }
        }
    }

    private let states: Mutex<[(name: String, state: State)]>

    public init(names: [String]) {
        states = Mutex(names.map { ($0, .starting) })
    }

    /// Each service's state, in the order they start.
    public var all: [(name: String, state: State)] { states.withLock { $0 } }

    /// The first service that ended on its own, if any.
    public var ended: (name: String, state: State)? { all.first { $0.state.endedOnItsOwn } }

    func set(_ name: String, _ state: State) {
        states.withLock { states in
            guard let index = states.firstIndex(where: { $0.name == name }) else { return }
            states[index].state = state
        }
    }
}

/// Runs one background service under the group: cancelled when the group shuts down gracefully (the
/// services stop one at a time, last started first). The failure policy: a service that throws, or returns
/// while the server runs, is marked in ``ServiceStates`` (so `/readyz` answers 503 naming it), said as a
/// warning in the log, and ends the group gracefully; ``Server/run(environment:until:)`` then throws
/// ``ServiceEnded`` and `kuroneko serve` exits with status 1, for systemd (`Restart=on-failure`) to start it
/// again. Never silent, never half a server.
struct ServiceSupervisor: ServiceLifecycle.Service {
    let service: any BackgroundService
    let states: ServiceStates
    let notices: Logger
    let stopped: @Sendable (String) -> Void

    func run() async throws {
        let name = service.name
        states.set(name, .running)
        do {
            try await cancelWhenGracefulShutdown { try await service.run() }
        } catch is CancellationError where Task.isShuttingDownGracefully || Task.isCancelled {
        } catch {
            states.set(name, .failed("\(error)"))
            notices.warning(
                "service \(name) ended: \(error); the server stops (a service manager starts it again)",
                metadata: ["service": .string(name)])
            throw error
        }
        if Task.isShuttingDownGracefully || Task.isCancelled {
            states.set(name, .stopped)
            stopped(name)
        } else {
            states.set(name, .returned)
            notices.warning(
                "service \(name) returned while the server ran; the server stops (a service manager starts it again)",
                metadata: ["service": .string(name)])
        }
    }
}

/// A background service ended on its own, and so the server did (the exit status 1 of `kuroneko serve`).
public struct ServiceEnded: Error, CustomStringConvertible {
    public let name: String
    public let state: ServiceStates.State

    public init(name: String, state: ServiceStates.State) {
        self.name = name
        self.state = state
    }

    public var description: String { "the service \(name) \(state.text); the server stopped" }
}

/// Tells whoever waits why the server stops: a signal's name, or the service that ended.
final class StopReason: Sendable {
    private let reason = Mutex<String?>(nil)

    /// Keeps the first reason given.
    func set(_ text: String) { reason.withLock { if $0 == nil { $0 = text } } }

    var text: String { reason.withLock { $0 } ?? "a stop" }
}
