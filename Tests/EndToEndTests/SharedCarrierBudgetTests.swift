import Foundation
import Kuroneko
import KuronekoHTTP
@testable import KuronekoPostgres
import KuronekoSimulator
import KuronekoTestSupport
import Testing

/// Sagawa and Japan Post are asked within budgets the servers on one PostgreSQL database share, as Yamato is:
/// three servers ask each no faster than one would.
@Suite(
    "each carrier's budget shared on PostgreSQL", .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PostgresForTests.settings != nil, "needs KURONEKO_TEST_POSTGRES (scripts/test sets it)"))
struct SharedCarrierBudgetTests {
    /// The simulator's pages, answered on the fake's threads (which record when each request arrived).
    static func simulated() async throws -> FakeUpstream {
        let responder = SimulatorResponder(clock: SimulatorClock())
        return try FakeUpstream(concurrent: true) { request in
            let answer = Answer()
            let done = DispatchSemaphore(value: 0)
            Task {
                answer.response = await responder.respond(
                    to: HTTPRequest(
                        method: request.method, target: request.path, headers: request.headers, body: request.body))
                done.signal()
            }
            done.wait()
            let response = answer.response ?? HTTPResponse(status: 500)
            return .init(
                status: response.status, contentType: response.header("Content-Type") ?? "text/html",
                body: response.body)
        }
    }

    final class Answer: @unchecked Sendable {
        // Written by one task before the semaphore is signalled, read after the wait.
        var response: HTTPResponse?
    }

    /// The gate's own record (the shared database's pacing row, kept on the database's clock) is what is read:
    /// where the requests arrive, a loaded machine may delay one after its gate and bring the next closer.
    @Test("three servers asking Sagawa and Japan Post: the shared gate lets each carrier's requests through its interval apart")
    func sagawaAndJapanPost() async throws {
        let database = try await PostgresForTests.freshDatabaseURL()
        let upstream = try await Self.simulated()
        defer { upstream.stop() }
        let origin = "http://127.0.0.1:\(upstream.port)"
        // Sagawa and Japan Post are asked a second apart (their politeness is not --min-interval's).
        let interval = 1.0
        let arguments = [
            "serve", "--db", database, "--endpoint", "sagawa=\(origin),japanpost=\(origin)", "--no-web-app",
            "--queue-deadline", "30",
        ]
        var servers: [ServerProcess] = []
        for _ in 0..<3 { servers.append(try await ServerProcess(arguments)) }
        defer { for server in servers { server.terminate(signal: SIGKILL) } }
        // Two numbers of each carrier through each server, all at once.
        let sagawa = (0..<6).map { String(4_100_000_000 + $0 * 37) }
        let japanPost = (0..<6).map { index -> String in
            let ten = String(1_100_000_000 + index * 53)
            return ten + String(Int(ten)! % 7)
        }
        let bases = servers.map(\.baseURL)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for (index, number) in (sagawa + japanPost).enumerated() {
                group.addTask {
                    (try? await HTTPClient.send("GET", bases[index % 3] + "/v1/shipments/\(number)"))?.status ?? 0
                }
            }
            var all: [Int] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "every lookup answered: \(statuses)")
        let requests = upstream.requests
        for (carrier, prefix) in [("sagawa", "/p/"), ("japanpost", "/services/")] {
            // Sagawa's form state (a GET of the form page) is fetched as part of the request it serves.
            let arrivals = requests.filter {
                $0.path.hasPrefix(prefix) && !($0.method == "GET" && $0.path.hasPrefix("/p/sagawa/web/okurijoinput.jsp"))
            }
            #expect(arrivals.count >= 3, "\(carrier) was asked \(arrivals.count) times")
            let admin = try PostgresConnection(url: database)
            let gateGap =
                try admin.run("SELECT shortest_gap FROM upstream_pacing WHERE carrier = ?", [.text(carrier)]).first?
                .double(0) ?? 0
            #expect(gateGap >= interval, "\(carrier): two requests let through \(gateGap) s apart")
        }
    }
}
