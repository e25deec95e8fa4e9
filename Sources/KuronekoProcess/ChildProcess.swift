import Foundation
import Synchronization

/// A child process started with `posix_spawn`: `kuroneko watch --exec` and the end-to-end tests start
/// theirs with it.
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a fixed-size copy that can
/// run past glibc's buffer and crash the parent (swift-corelibs-foundation pull request 5472, after Swift
/// 6.3), the more often the more descriptors are open. The child gets the given descriptors as its standard input, output and error,
/// every other descriptor closed, and default signal handling with nothing blocked.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The exit status once reaped: the code it exited with, or 128 + the signal that ended it.
    private let status = Mutex<Int32?>(nil)

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc 2.34+ has it; Swift's Glibc module does not declare it.
    private static let closeFrom: CloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
    )
    .map { unsafeBitCast($0, to: CloseFrom.self) }

    public init(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        input: Int32, output: Int32, error: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw POSIXError(.ENOSYS)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    /// Whether it is still running (without reaping it).
    public var isRunning: Bool {
        if status.withLock({ $0 }) != nil { return false }
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        // With nothing to report, Linux leaves the record zeroed.
        return result == 0 && info.si_signo == 0
    }

    /// Sends a signal, unless it has been reaped (its pid may belong to another process by then).
    public func send(signal: Int32) {
        status.withLock { status in
            if status == nil { kill(pid, signal) }
        }
    }

    /// Waits for it to end and reaps it; the exit status.
    @discardableResult
    public func wait() -> Int32 {
        if let done = status.withLock({ $0 }) { return done }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let code = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        return status.withLock { status in
            if status == nil { status = code }
            return status ?? code
        }
    }

    deinit {
        if status.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }
}
