import Dispatch
import Foundation
import Synchronization

/// A thread of its own that owns one SQLite connection and runs what is queued for it, one job at a time:
/// the connection is never touched by any other thread, and a job that waits for the file (a busy lock held
/// by another process) waits here, never on the cooperative pool the server's tasks run on.
///
/// The writer runs what has queued up since its last turn in one transaction (a group commit: each job in a
/// savepoint of its own, so one that throws is rolled back alone), and answers each job once the transaction
/// is committed. A reader runs each job as it comes, outside any transaction. A job whose task was cancelled
/// before its turn is not run.
final class SQLiteWorker: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only on the worker's own thread (after `init` hands it
    // over); everything else shared is in `state` (a Mutex) or is a semaphore.

    enum Kind {
        /// Jobs queued together run in one `BEGIN IMMEDIATE` transaction, each in a savepoint.
        case writer
        /// Each job runs by itself, outside any explicit transaction.
        case reader
    }

    /// One call: runs on the worker's thread, then is told how its transaction ended.
    final class Job: Sendable {
        let run: @Sendable (SQLiteConnection) -> Bool
        let finish: @Sendable ((any Error)?) -> Void
        let cancelled = Atomic(false)

        /// - Parameters:
        ///   - run: does the work and keeps its result; false when it threw (and kept its error).
        ///   - finish: answers the caller: with what `run` kept, or with the error that ended the transaction.
        init(run: @escaping @Sendable (SQLiteConnection) -> Bool, finish: @escaping @Sendable ((any Error)?) -> Void) {
            self.run = run
            self.finish = finish
        }
    }

    private struct State {
        var queued: [Job] = []
        var stopping = false
    }

    /// Jobs run in one group commit at most; more wait for the next.
    static let batchLimit = 256
    /// Times the thread yields, looking for a job, before it sleeps.
    static let yieldsBeforeSleep = 8

    /// Closed (and the WAL checkpointed into the file) by the thread as it ends, before ``stop()`` returns.
    private var connection: SQLiteConnection?
    private let kind: Kind
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    init(connection: SQLiteConnection, kind: Kind, name: String) {
        self.connection = connection
        self.kind = kind
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Queues `body`; its value once it ran (and, for the writer, once its transaction committed). A task
    /// cancelled before the job's turn gets `CancellationError` and the job never runs.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let call = Call<T>()
        let job = Job(run: { call.perform(body, on: $0) }, finish: { call.finish($0) })
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                call.waiting(continuation)
                enqueue(job)
            }
        } onCancel: {
            job.cancelled.store(true, ordering: .releasing)
        }
    }

    /// Runs `body` and blocks the calling thread until it has (for synchronous paths of the command line and
    /// for tests; never from the worker's own thread).
    func runAndWait<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) throws -> T {
        let call = Call<T>()
        let done = DispatchSemaphore(value: 0)
        let job = Job(run: { call.perform(body, on: $0) }, finish: { ended in
            call.finish(ended)
            done.signal()
        })
        enqueue(job)
        done.wait()
        return try call.result()
    }

    /// What one call kept of its job: the body's result, and the caller waiting for it.
    private final class Call<T: Sendable>: Sendable {
        private struct Kept {
            var result: Result<T, any Error>?
            var continuation: CheckedContinuation<T, any Error>?
        }

        private let kept = Mutex(Kept())

        func waiting(_ continuation: CheckedContinuation<T, any Error>) {
            kept.withLock { $0.continuation = continuation }
        }

        func perform(_ body: (SQLiteConnection) throws -> T, on connection: SQLiteConnection) -> Bool {
            let result = Result { try body(connection) }
            kept.withLock { $0.result = result }
            if case .failure = result { return false }
            return true
        }

        /// The job is over: `ended` is the error that ended its transaction (or its cancellation), if any.
        func finish(_ ended: (any Error)?) {
            let (continuation, result) = kept.withLock { kept -> (CheckedContinuation<T, any Error>?, Result<T, any Error>) in
                if let ended { kept.result = .failure(ended) }
                defer { kept.continuation = nil }
                return (kept.continuation, kept.result ?? .failure(CancellationError()))
            }
            continuation?.resume(with: result)
        }

        func result() throws -> T {
            try (kept.withLock { $0.result } ?? .failure(CancellationError())).get()
        }
    }

    /// Jobs waiting for their turn.
    var queuedCount: Int { state.withLock { $0.queued.count } }

    private func enqueue(_ job: Job) {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queued.append(job)
            return true
        }
        guard accepted else {
            job.finish(StoreError(code: 0, message: "the database is closed"))
            return
        }
        wake.signal()
    }

    /// Stops taking jobs, lets the queued ones run, and returns once the thread has finished (at once when
    /// called on the worker's own thread: the last reference to a database can go with a job's closure).
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake.signal()
        guard Thread.current.threadDictionary[Self.ownerKey] as? ObjectIdentifier != ObjectIdentifier(self) else {
            return
        }
        stopped.wait()
    }

    private static let ownerKey = "kuroneko.sqlite.worker"

    private func loop() {
        Thread.current.threadDictionary[Self.ownerKey] = ObjectIdentifier(self)
        var stopRequested = false
        while true {
            // The semaphore counts queued jobs (and one more for a stop): a wait per job taken. Under load the
            // next job is often a moment away: a few yields first, before the thread sleeps.
            var woken = false
            for _ in 0..<Self.yieldsBeforeSleep where !woken {
                woken = wake.wait(timeout: .now()) == .success
                if !woken { sched_yield() }
            }
            if !woken { wake.wait() }
            var batch: [Job] = []
            if let first = takeOne() { batch.append(first) } else { stopRequested = true }
            while kind == .writer, batch.count < Self.batchLimit, wake.wait(timeout: .now()) == .success {
                if let next = takeOne() { batch.append(next) } else { stopRequested = true }
            }
            let live = batch.filter { job in
                guard job.cancelled.load(ordering: .acquiring) else { return true }
                job.finish(CancellationError())
                return false
            }
            if !live.isEmpty, let open = connection {
                switch kind {
                case .reader:
                    for job in live {
                        _ = job.run(open)
                        job.finish(nil)
                    }
                case .writer:
                    commit(live, on: open)
                }
            }
            if stopRequested, state.withLock({ $0.queued.isEmpty }) {
                connection = nil
                stopped.signal()
                return
            }
        }
    }

    private func takeOne() -> Job? {
        state.withLock { state in state.queued.isEmpty ? nil : state.queued.removeFirst() }
    }

    /// Runs `jobs` in one transaction, each in a savepoint; answers them after the commit.
    private func commit(_ jobs: [Job], on connection: SQLiteConnection) {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            for job in jobs { job.finish(error) }
            return
        }
        for job in jobs {
            do {
                try connection.execute("SAVEPOINT job")
                if job.run(connection) {
                    try connection.execute("RELEASE job")
                } else {
                    try connection.execute("ROLLBACK TO job")
                    try connection.execute("RELEASE job")
                }
            } catch {
                // The savepoint itself failed: the transaction is in doubt; end it and fail what it held.
                try? connection.execute("ROLLBACK")
                for job in jobs { job.finish(error) }
                return
            }
        }
        do {
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            for job in jobs { job.finish(error) }
            return
        }
        for job in jobs { job.finish(nil) }
    }
}
