import Foundation
import KuronekoHTTP

// The HTTP adapter alone, from Swift: KuronekoHTTP's HTTPServer answering every request at once with the
// same 1.5 KB JSON body, no routing, no middleware. What `kuroneko serve`'s cache hits cost beyond this is
// the API and its middleware. Usage: BareServer [PORT]
struct FixedAnswer: HTTPApplication {
    static let body = Data(("{" + String(repeating: " ", count: 1533) + "}").utf8)

    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        .now(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Self.body))
    }
}

TerminationSignals.block()
let port = CommandLine.arguments.dropFirst().first.flatMap { UInt16($0) } ?? 18090
do {
    let server = try HTTPServer(
        configuration: HTTPServer.Configuration(port: port, receiveTimeoutSeconds: 0), application: FixedAnswer())
    FileHandle.standardError.write(Data("bare server listening on \(server.port)\n".utf8))
    _ = await TerminationSignals.wait()
    await server.shutdown(deadline: .seconds(1))
} catch {
    FileHandle.standardError.write(Data("bare server: \(error)\n".utf8))
    exit(1)
}
