import Foundation
import KuronekoProcess
import KuronekoTestSupport

/// Runs the built `kuroneko` executable and captures what it printed.
enum KuronekoBinary {
    struct Outcome: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// This process's environment, with the places a user's own data lives (`XDG_DATA_HOME`, where the default
    /// watch list is, and `XDG_CONFIG_HOME`) moved into a folder of this test run's own: no test reads or
    /// writes the machine's real `~/.local/share/kuroneko`, which another checkout's tests (at another schema
    /// version) may be using at the same moment.
    static let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kuroneko-test-home-\(ProcessInfo.processInfo.processIdentifier)")
        for (name, folder) in [("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config")] where environment[name] == nil {
            let path = home.appendingPathComponent(folder).path
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            environment[name] = path
        }
        return environment
    }()

    /// The executable SwiftPM built beside this test bundle.
    static var url: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("kuroneko")
    }

    /// Runs the tool (or `executable`, for a wrapper such as `script`) and waits for it on a thread of its own,
    /// so that the wait never holds one of the few threads every other test's tasks run on.
    static func run(
        _ arguments: [String], input: String? = nil, executable: URL? = nil, environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await onOwnThread {
            Result { try runBlocking(arguments, input: input, executable: executable, environment: environment) }
        }.get()
    }

    /// The same as ``run(_:input:executable:environment:)``.
    static func runAside(
        _ arguments: [String], input: String? = nil, executable: URL? = nil, environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await run(arguments, input: input, executable: executable, environment: environment)
    }

    /// Runs the tool and waits for it, blocking the calling thread.
    private static func runBlocking(
        _ arguments: [String], input: String?, executable: URL?, environment: [String: String]
    ) throws -> Outcome {
        var merged = Self.environment
        merged.merge(environment) { $1 }
        // Files, not pipes: a pipe that fills up while nobody reads it would stall the tool.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        let inputPipe = Pipe()
        let child = try ChildProcess(
            (executable ?? url).path, arguments, environment: merged,
            input: inputPipe.fileHandleForReading.fileDescriptor, output: output.fileDescriptor,
            error: error.fileDescriptor)
        try inputPipe.fileHandleForReading.close()
        try output.close()
        try error.close()
        if let input {
            inputPipe.fileHandleForWriting.write(Data(input.utf8))
        }
        try inputPipe.fileHandleForWriting.close()
        let status = child.wait()
        return Outcome(
            status: status,
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}
