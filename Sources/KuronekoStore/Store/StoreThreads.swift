import Dispatch

/// Store calls for async callers, off the cooperative pool: the call runs on a thread of a concurrent
/// dispatch queue of the store's own (GCD's threads, at most 64 at once) while the caller's task is
/// suspended, so a write waiting for SQLite's lock or for a PostgreSQL connection from a full pool never
/// holds one of the few threads every task of the process runs on. The server's routes and services call
/// the store through it; the command line, which has nothing else to run, calls the store directly.
public enum StoreThreads {
    private static let queue = DispatchQueue(label: "kuroneko.store", qos: .userInitiated, attributes: .concurrent)

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
