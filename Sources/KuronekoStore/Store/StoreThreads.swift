import Dispatch
import Synchronization

/// Store calls for async callers, off the cooperative pool where they can wait: each call of a database
/// reached over the network runs on a thread of a dispatch queue of the store's own while the caller's task
/// is suspended, so a round trip or a wait for a PostgreSQL connection never holds one of the few threads
/// every task of the process runs on. At most ``width`` calls
/// run at once (the PostgreSQL pool's size; SQLite has one writer anyway): more wait, suspended, in order,
/// rather than as threads contending for one lock. The server's routes and services call the store through
/// it; the command line, which has nothing else to run, calls the store directly.
public enum StoreThreads {
    /// Calls on threads at once.
    public static let width = 4

    private static let queue = DispatchQueue(label: "kuroneko.store", qos: .userInitiated, attributes: .concurrent)
    private static let permits = Permits(width)

    /// Runs `body`, a call of `store`: on a thread of its own when the store is reached over the network
    /// (PostgreSQL: round trips, a pool that may keep a caller waiting); inline when it is a local file
    /// (SQLite: calls of a fraction of a millisecond, where handing them to another thread and back cost
    /// more than half the throughput of adds on a 2-core machine, bench in docs/BENCHMARKS.md).
    public static func run<T: Sendable>(on store: any WatchStore, _ body: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        guard store.isRemote else { return try body() }
        await permits.acquire()
        defer { permits.release() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// A counting semaphore for tasks: `acquire` suspends (never blocks a thread) until a permit is free;
/// waiters are served first come, first served.
final class Permits: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
        var head = 0
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: count))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiting.count else {
                state.free += 1
                return nil
            }
            let next = state.waiting[state.head]
            state.head += 1
            // Drop served waiters now and then, so the array does not grow with every wait ever made.
            if state.head > 64, state.head * 2 > state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return next
        }
        next?.resume()
    }
}
