import Foundation
import KuronekoHTTP
import Synchronization
import Testing

/// What a reader thread collected, handed over when the pipe ends.
private final class Collected: Sendable {
    private let state = Mutex<(data: Data, done: Bool, waiter: CheckedContinuation<String, Never>?)>(
        (Data(), false, nil))

    func append(_ chunk: Data) { state.withLock { $0.data.append(chunk) } }

    func finish() {
        let (waiter, text) = state.withLock { state -> (CheckedContinuation<String, Never>?, String) in
            state.done = true
            defer { state.waiter = nil }
            return (state.waiter, String(decoding: state.data, as: UTF8.self))
        }
        waiter?.resume(returning: text)
    }

    func text() async -> String {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> String? in
                if state.done { return String(decoding: state.data, as: UTF8.self) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// The access log's writer never makes a request wait for the log's reader, and keeps what waits bounded.
@Suite("Buffered log writer", .timeLimit(.minutes(10)))
struct LogWriterTests {
    @Test("with nobody reading the pipe, writing never blocks; lines over the limit are dropped, then counted")
    func boundedWhenStuck() async throws {
        let pipe = Pipe()
        var writer: BufferedLogWriter? = BufferedLogWriter(handle: pipe.fileHandleForWriting, limit: 16 * 1024)
        let line = "request time=2026-11-30T00:00:00.000Z id=x method=GET route=/healthz status=200 duration_ms=0.100"
        // Far more than the pipe (64 KiB) and the limit hold; a blocking writer would never get through (the
        // suite's time limit would end the test), so getting past the loop is the proof.
        for _ in 0..<20_000 { writer?.write(line) }
        #expect((writer?.droppedLines ?? 0) > 0)
        // Once a reader drains the pipe, what waited arrives, followed by the count of what was dropped.
        let reader = pipe.fileHandleForReading
        // A thread of its own: the blocking reads must not wait for the tasks' shared threads.
        let collected = Collected()
        let readerThread = Thread {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                collected.append(chunk)
            }
            collected.finish()
        }
        readerThread.start()
        #expect(writer?.flush(timeout: .seconds(10)) == true)
        writer = nil
        // Everything is written: closing the pipe ends the reader.
        try pipe.fileHandleForWriting.close()
        let text = await collected.text()
        #expect(text.contains(line))
        #expect(text.contains("log dropped="))
    }
}
