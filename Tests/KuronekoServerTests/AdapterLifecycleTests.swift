import Foundation
import KuronekoHTTP
import Testing

private struct Fixed: HTTPApplication {
    func answer(_ request: HTTPRequest) -> HTTPAnswer { .now(HTTPResponse(status: 204)) }
}

/// Starting, stopping and dropping the libmicrohttpd adapter in-process, with every option it has.
@Suite("HTTP adapter lifecycle")
struct AdapterLifecycleTests {
    @Test("a server with the receive deadline off stops and is released without a trap", arguments: [0, 5])
    func releaseAfterShutdown(receiveTimeout: Int) async throws {
        var server: HTTPServer? = try HTTPServer(
            configuration: HTTPServer.Configuration(port: 0, receiveTimeoutSeconds: receiveTimeout),
            application: Fixed())
        #expect(server!.port != 0)
        await server!.shutdown(deadline: .seconds(1))
        server = nil
        #expect(server == nil)
    }
}
