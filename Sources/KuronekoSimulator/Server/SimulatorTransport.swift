import Foundation
import Kuroneko
import KuronekoHTTP

/// Hands upstream requests straight to an in-process simulator: `kuroneko serve --demo` uses it as Yamato.
public struct SimulatorTransport: HTTPTransport {
    private let simulator: SimulatorResponder

    public init(simulator: SimulatorResponder) {
        self.simulator = simulator
    }

    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let response = await simulator.respond(
            to: HTTPRequest(
                method: request.method, target: request.url.path + (request.url.query.map { "?" + $0 } ?? ""), headers: request.headers, body: request.body))
        return UpstreamResponse(
            status: response.status, headers: Dictionary(response.headers.map { ($0.name, $0.value) }) { $1 },
            body: response.body)
    }
}
