import Foundation
import KuronekoHTTP
import Testing

private struct Fixed: HTTPApplication {
    func answer(_ request: HTTPRequest) -> HTTPAnswer { .now(HTTPResponse(status: 204)) }
}

/// Starting, stopping and dropping the libmicrohttpd adapter in-process, with every option it has.
@Suite("HTTP adapter lifecycle", .timeLimit(.minutes(10)))
struct AdapterLifecycleTests {
    @Test(
        "a server with the receive deadline on or off stops, is released without a trap, and its port is free again",
        .timeLimit(.minutes(10)), arguments: [0, 5])
    func releaseAfterShutdown(receiveTimeout: Int) async throws {
        var server: HTTPServer? = try HTTPServer(
            configuration: HTTPServer.Configuration(port: 0, receiveTimeoutSeconds: receiveTimeout),
            application: Fixed())
        let port = try #require(server?.port)
        #expect(port != 0)
        await server?.shutdown(deadline: .seconds(1))
        // Released here: a deadline timer never resumed, or a daemon stopped twice, would trap now.
        server = nil
        let again = try HTTPServer(
            configuration: HTTPServer.Configuration(port: port, receiveTimeoutSeconds: receiveTimeout),
            application: Fixed())
        #expect(again.port == port, "the stopped server gave its port back")
        await again.shutdown(deadline: .seconds(1))
    }
}
