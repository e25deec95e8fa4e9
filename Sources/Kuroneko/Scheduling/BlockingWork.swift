import Foundation

/// Blocking work (a wait for a child process, a flush that waits for its writer, a C library's blocking call)
/// run on a thread of its own and awaited, so that it never holds one of the cooperative pool's few threads
/// (two on a two-core machine), on which every request and every service's tasks run.
public func awaitBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
