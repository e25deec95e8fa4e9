import Foundation
import Synchronization

/// Writes log lines to a file handle in batches, on a queue of its own: every 200 ms, as soon as 8 KiB are
/// waiting, and on ``flush(timeout:)``. At tens of thousands of requests a second, one `write` per access-log line
/// would cost more than the answer; and a request's thread must never wait for a slow or stuck reader of
/// the log. What is waiting is bounded (1 MiB by default): lines beyond it are dropped and counted, and the
/// count is written as a line of its own once there is room again.
///
/// The lines waiting are kept in a ``Batch`` that the timer and the writer's queue hold strongly; the writer
/// itself is never held weakly (a weak reference gives an object a side table, which every retain of it, on
/// every request, would then go through). Dropping the writer cancels the timer.
public final class BufferedLogWriter: LogSink, Sendable {
    private let batch: Batch
    /// Set up in `init`, cancelled in `deinit`; everything else is in the ``Batch``, behind its Mutex.
    private let timer: Mutex<(any DispatchSourceTimer)?>

    /// - Parameters:
    ///   - limit: the most bytes waiting to be written; lines beyond it are dropped.
    ///   - format: how the line counting dropped lines is written.
    public init(
        handle: FileHandle = .standardError, interval: DispatchTimeInterval = .milliseconds(200),
        limit: Int = 1 << 20, format: LogFormat = .text
    ) {
        let batch = Batch(handle: handle, limit: limit, format: format)
        self.batch = batch
        let source = DispatchSource.makeTimerSource(queue: batch.queue)
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { batch.writePending() }
        source.resume()
        timer = Mutex(source)
    }

    deinit {
        timer.withLock { $0?.cancel() }
        // Handed to the queue, not written here: a stuck reader must not hold whoever drops the writer.
        let batch = self.batch
        batch.queue.async { batch.writePending() }
    }

    /// Lines dropped so far because the reader of the log did not keep up.
    public var droppedLines: Int { batch.droppedLines }

    public func write(_ line: String) {
        var line = line
        // Copying the contiguous bytes at once; appending the UTF-8 view goes byte by byte.
        line.withUTF8 { write(line: UnsafeRawBufferPointer($0)) }
    }

    public func write(line: UnsafeRawBufferPointer) {
        batch.append(line)
    }

    /// Writes what is waiting and returns once it is written, or after `timeout` if the log's reader is
    /// stuck (the write then goes on, on the writer's queue).
    /// - Returns: whether everything was written in time.
    @discardableResult
    public func flush(timeout: Duration = .seconds(2)) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let batch = self.batch
        batch.queue.async {
            batch.writePending()
            done.signal()
        }
        return done.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .success
    }

    /// The bytes waiting and the counters, in one Mutex; only `queue` writes to the handle.
    private final class Batch: Sendable {
        private struct State {
            var buffer: [UInt8] = []
            /// The buffer being written, handed back empty for reuse so that neither side allocates.
            var spare: [UInt8] = []
            var dropped = 0
            var droppedTotal = 0
            var flushScheduled = false
        }

        let queue = DispatchQueue(label: "kuroneko.log")
        private let handle: FileHandle
        private let limit: Int
        private let format: LogFormat
        private let state = Mutex(State())

        init(handle: FileHandle, limit: Int, format: LogFormat) {
            self.handle = handle
            self.limit = limit
            self.format = format
        }

        var droppedLines: Int { state.withLock { $0.droppedTotal } }

        func append(_ line: UnsafeRawBufferPointer) {
            let limit = self.limit
            let schedule = state.withLock { state -> Bool in
                guard state.buffer.count + line.count < limit else {
                    state.dropped += 1
                    state.droppedTotal += 1
                    return false
                }
                state.buffer.append(contentsOf: line)
                state.buffer.append(UInt8(ascii: "\n"))
                let schedule = state.buffer.count >= 8192 && !state.flushScheduled
                if schedule { state.flushScheduled = true }
                return schedule
            }
            if schedule { queue.async { self.writePending() } }
        }

        /// On the writer's queue only.
        func writePending() {
            var (pending, droppedNow) = takePending()
            Self.write(pending, dropped: droppedNow, format: format, to: handle)
            pending.removeAll(keepingCapacity: true)
            state.withLock { state in
                if state.spare.capacity < pending.capacity { swap(&state.spare, &pending) }
            }
        }

        private func takePending() -> ([UInt8], Int) {
            state.withLock { state in
                var pending: [UInt8] = []
                swap(&pending, &state.spare)
                swap(&pending, &state.buffer)
                state.flushScheduled = false
                let droppedNow = state.dropped
                state.dropped = 0
                return (pending, droppedNow)
            }
        }

        private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else if written < 0, errno == EAGAIN {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    guard poll(&ready, 1, 1_000) > 0 else { return }
                } else {
                    return
                }
            }
        }

        private static func write(_ pending: [UInt8], dropped: Int, format: LogFormat, to handle: FileHandle) {
            // Straight from the buffer: a Data copy would allocate as much again at every flush.
            if !pending.isEmpty { pending.withUnsafeBytes { writeAll($0, to: handle.fileDescriptor) } }
            guard dropped > 0 else { return }
            let reason = "the log's reader did not keep up"
            let line =
                switch format {
                case .text: "log dropped=\(dropped) reason=\(reason)"
                case .json:
                    LineLogHandler.object(
                        level: .warning, message: "log",
                        fields: [("dropped", .stringConvertible(dropped)), ("reason", .string(reason))])
                }
            handle.write(Data((line + "\n").utf8))
        }
    }
}
