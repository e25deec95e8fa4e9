import Foundation
import KuronekoTestSupport
import Synchronization

/// The `kuroneko` binary running in the background, its standard output read as it is written, so a test
/// can see what a person would see before the run ends.
final class RunningTool: Sendable {
    private let process: Process
    private let output = Mutex((data: Data(), ended: false))
    private let arrived = DispatchSemaphore(value: 0)
    private let errorFile: URL

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = KuronekoBinary.url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
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
    func waitForLines(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
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
            process.waitUntilExit()
            // Everything written is read once the pipe has ended.
            while !output.withLock({ $0.ended }) {
                if arrived.wait(timeout: .now() + .seconds(30)) == .timedOut { break }
            }
            let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: errorFile)
            return (process.terminationStatus, lines, error)
        }
    }
}
