import Foundation
import KuronekoProcess
import KuronekoTestSupport
import Synchronization

/// The `kuroneko` binary running in the background, its standard output read as it is written, so a test
/// can see what a person would see before the run ends.
final class RunningTool: Sendable {
    private let child: ChildProcess
    private let output = Mutex((data: Data(), ended: false))
    private let arrived = DispatchSemaphore(value: 0)
    private let errorFile: URL

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let pipe = Pipe()
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let error = try FileHandle(forWritingTo: errorFile)
        let nothing = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        child = try ChildProcess(
            KuronekoBinary.url.path, arguments,
            environment: KuronekoBinary.environment.merging(environment) { $1 },
            input: nothing.fileDescriptor, output: pipe.fileHandleForWriting.fileDescriptor, error: error.fileDescriptor
        )
        // The child has its own copies; the reader sees the end of the pipe when the child's copy closes.
        try pipe.fileHandleForWriting.close()
        try error.close()
        try nothing.close()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = reader.availableData
                output.withLock { state in
                    state.data.append(chunk)
                    state.ended = chunk.isEmpty
                }
                arrived.signal()
                if chunk.isEmpty { return }
            }
        }
    }

    /// Standard output so far, as lines.
    var lines: [String] {
        String(decoding: output.withLock { $0.data }, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Waits (on a thread of its own) until `count` lines are out, for at most `timeout`.
    func waitForLines(_ count: Int, timeout: Duration = .seconds(120)) async -> Bool {
        await onOwnThread { [self] in
            let deadline = DispatchTime.now() + .milliseconds(Int(timeout / .milliseconds(1)))
            while lines.count < count {
                if arrived.wait(timeout: deadline) == .timedOut { return false }
            }
            return true
        }
    }

    /// Waits for the tool to exit.
    func finish() async -> (status: Int32, output: [String], error: String) {
        await onOwnThread { [self] in
            let status = child.wait()
            // Everything written is read once the pipe has ended.
            while !output.withLock({ $0.ended }) {
                if arrived.wait(timeout: .now() + .seconds(30)) == .timedOut { break }
            }
            let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: errorFile)
            return (status, lines, error)
        }
    }
}
