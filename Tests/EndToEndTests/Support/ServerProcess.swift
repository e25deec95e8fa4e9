import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A long-running `kuroneko` server (`simulate`, `serve`) started for a test and always stopped.
final class ServerProcess {
    let process = Process()
    let port: Int
    private let errorPipe = Pipe()

    /// Starts `kuroneko ARGUMENTS --port 0` and waits for its "listening on" line.
    init(_ arguments: [String]) throws {
        process.executableURL = KuronekoBinary.url
        process.arguments = arguments + ["--port", "0"]
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        let handle = errorPipe.fileHandleForReading
        while true {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw ServerProcessError(output: String(decoding: buffer, as: UTF8.self)) }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let address = text[range]
                port = Int(address[address.index(after: address.lastIndex(of: ":")!)...]) ?? 0
                return
            }
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM (or the given signal) and waits; the exit status and the rest of what the server wrote
    /// on stderr.
    func stop(signal: Int32 = SIGTERM) -> (status: Int32, log: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        let rest = errorPipe.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    let output: String
    var description: String { "the server exited before listening: \(output)" }
}

/// Plain HTTP from a test, through URLSession.
enum HTTPClient {
    static func send(_ method: String, _ url: String, body: String? = nil, headers: [String: String] = [:])
        async throws -> (status: Int, body: Data)
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
