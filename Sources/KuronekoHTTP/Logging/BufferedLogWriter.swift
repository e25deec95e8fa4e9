import Foundation

/// Writes log lines to a file handle in batches: at 8 KiB, every 200 ms, and on ``flush()``. At tens of
/// thousands of requests a second, one `write` per access-log line would cost more than the answer.
///
/// `@unchecked Sendable`: `buffer` is guarded by `lock`; the timer only calls `flush()`.
public final class BufferedLogWriter: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private var buffer = Data()
    private let timer: any DispatchSourceTimer

    public init(handle: FileHandle = .standardError, interval: DispatchTimeInterval = .milliseconds(200)) {
        self.handle = handle
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "kuroneko.log"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit {
        timer.cancel()
        flush()
    }

    public func write(_ line: String) {
        var line = line
        lock.lock()
        // Copying the contiguous bytes at once; appending the UTF-8 view goes byte by byte.
        line.withUTF8 { buffer.append($0) }
        buffer.append(UInt8(ascii: "\n"))
        let full = buffer.count >= 8192
        lock.unlock()
        if full { flush() }
    }

    public func flush() {
        lock.lock()
        let pending = buffer
        buffer.removeAll(keepingCapacity: true)
        lock.unlock()
        if !pending.isEmpty { handle.write(pending) }
    }
}
