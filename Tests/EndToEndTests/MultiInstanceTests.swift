import Foundation
import Kuroneko
@testable import KuronekoPostgres
import KuronekoTestSupport
import Synchronization
import Testing

/// PostgreSQL for the end-to-end tests: the server scripts/test started (`KURONEKO_TEST_POSTGRES`).
enum PostgresForTests {
    static let settings: String? = ProcessInfo.processInfo.environment["KURONEKO_TEST_POSTGRES"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// A new database; its `postgresql://` URL, as `serve --db` takes it.
    static func freshDatabaseURL() async throws -> String {
        guard let settings else { throw PostgresTestSetupError.unset }
        let pairs = Dictionary(
            settings.split(separator: " ").compactMap { item -> (String, String)? in
                let parts = item.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        let name = "kuroneko_e2e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: settings + " dbname=postgres")
        try admin.execute("CREATE DATABASE \(name)")
        return "postgresql://\(pairs["user"] ?? "postgres")@/\(name)?host=\(pairs["host"] ?? "/tmp")"
    }
}

enum PostgresTestSetupError: Error {
    case unset
}

/// The upstream's answer, switched by the test: every number in transit, then out for delivery.
final class UpstreamPhase: Sendable {
    private let phase = Mutex(0)
    var label: String { phase.withLock { $0 == 0 ? "輸送中" : "配達中" } }
    func advance() { phase.withLock { $0 = 1 } }
}

@Suite(
    "several servers on one PostgreSQL", .serialized, .timeLimit(.minutes(10)),
    .enabled(if: PostgresForTests.settings != nil, "needs KURONEKO_TEST_POSTGRES (scripts/test sets it)"))
struct MultiInstanceTests {
    @Test("three servers, one list: each change found once and delivered once, a server killed, the budget held")
    func threeServers() async throws {
        let database = try await PostgresForTests.freshDatabaseURL()
        let phase = UpstreamPhase()
        let upstream = try FakeUpstream(concurrent: true) { request in
            let numbers = FakeTrackingPage.numbers(inFormBody: request.body)
            // Each POST takes longer than two intervals, so without the shared slots three would be in flight.
            Thread.sleep(forTimeInterval: 2.5)
            let label = phase.label
            return .init(
                status: 200,
                body: FakeTrackingPage.html(
                    blocks: numbers.map { .init(number: $0, state: label, rows: [.init(label, "11月28日 10:00")]) }))
        }
        defer { upstream.stop() }
        let receiver = try FakeUpstream(concurrent: true) { _ in
            .init(status: 204, contentType: "text/plain", body: Data())
        }
        defer { receiver.stop() }
        let arguments = [
            "serve", "--db", database, "--endpoint", upstream.endpoint, "--poll-speed", "600", "--max-concurrent", "2",
            "--min-interval", "1", "--allow-private-webhooks", "--no-web-app",
        ]
        var servers: [ServerProcess] = []
        for _ in 0..<3 { servers.append(try await ServerProcess(arguments)) }
        // Stopped once each: the first two at the end, the third when it is killed mid-run.
        var running = servers
        defer { for server in running { server.terminate(signal: SIGKILL) } }

        // Thirty watches, ten through each server, each with a webhook.
        let numbers = ValidNumbers.numbers(30)
        let hook = "http://127.0.0.1:\(receiver.port)/hook"
        for (index, number) in numbers.enumerated() {
            let body = #"{"number": "\#(number.digits)", "webhook_url": "\#(hook)"}"#
            let answer = try await HTTPClient.send("POST", servers[index % 3].baseURL + "/v1/watches", body: body)
            #expect(answer.status == 201)
        }
        // Every watch gets its baseline (in transit): a refresh answers once its check is recorded. One the
        // budget could not fit before its deadline (503/504) is asked again.
        let bases = servers.map(\.baseURL)
        var unsettled = numbers
        for _ in 0..<5 where !unsettled.isEmpty {
            unsettled = await withTaskGroup(of: TrackingNumber?.self) { group in
                for (index, number) in unsettled.enumerated() {
                    group.addTask {
                        let url = bases[index % 3] + "/v1/watches/\(number.digits)/refresh"
                        return (try? await HTTPClient.send("POST", url))?.status == 200 ? nil : number
                    }
                }
                var left: [TrackingNumber] = []
                for await number in group { if let number { left.append(number) } }
                return left
            }
        }
        #expect(unsettled.isEmpty, "the first checks never all came back: \(unsettled.count) left")

        // The parcels move on; one server dies at once, holding whatever it had claimed.
        phase.advance()
        _ = await servers[2].stop(signal: SIGKILL)
        running.removeLast()
        let delivered = await receiver.waitForAnswers(timeout: .seconds(90)) { answered in
            Set(answered.compactMap { Self.changeID(of: $0.body) }).count >= 30
        }
        #expect(delivered, "not every change was delivered")

        // Each watch changed once (seen through either surviving server), and each change was delivered.
        var changeIDs: Set<String> = []
        for (index, number) in numbers.enumerated() {
            let server = servers[index % 2]
            let answer = try await HTTPClient.send("GET", server.baseURL + "/v1/watches/\(number.digits)/changes")
            let changes = (try JSON(data: answer.body))["changes"]?.elements ?? []
            #expect(changes.count == 1, "\(number.formatted) changed \(changes.count) times")
            if case .string(let id)? = changes.first?["id"] { changeIDs.insert(id) }
        }
        let deliveries = receiver.requests.compactMap { Self.changeID(of: $0.body) }
        let duplicates = deliveries.count - Set(deliveries).count
        #expect(Set(deliveries) == changeIDs, "every change delivered, and nothing else")
        #expect(duplicates <= 1, "at most the one delivery the killed server may have sent without recording it")

        // The budget across all three: never more than two POSTs at once, starts at least a second apart as the
        // budget's own record says (kept on the database's clock at the gate just before the wire; where the POSTs
        // arrive, a server whose task waited longer on a loaded machine comes late, and the next one closer).
        #expect(upstream.inFlightPeak <= 2)
        let admin = try PostgresConnection(url: database)
        let gateGap = try admin.run("SELECT shortest_gap FROM upstream_pacing WHERE carrier = 'yamato'").first?.double(0) ?? 0
        #expect(gateGap >= 1.0, "two POSTs let through \(gateGap) s apart")
    }

    @Test(
        "a shipment one server fetched is served by the other from the database, and a newer one reaches it by NOTIFY")
    func sharedShipments() async throws {
        let database = try await PostgresForTests.freshDatabaseURL()
        let phase = UpstreamPhase()
        let upstream = try FakeUpstream { request in
            let label = phase.label
            return .init(
                status: 200,
                body: FakeTrackingPage.html(
                    blocks: FakeTrackingPage.numbers(inFormBody: request.body).map {
                        .init(number: $0, state: label, rows: [.init(label, "11月28日 10:00")])
                    }))
        }
        defer { upstream.stop() }
        let arguments = [
            "serve", "--db", database, "--endpoint", upstream.endpoint, "--min-interval", "0", "--no-web-app",
        ]
        let first = try await ServerProcess(arguments)
        defer { first.terminate() }
        // The second writes JSON: its event lines (a sentence, then fields) are held to one object each, with the
        // message whole (ServerProcess checks every line at the end).
        let second = try await ServerProcess(arguments + ["--log-format", "json"])
        // The second server hears the first's answers once its listener is listening (on a loaded machine, well
        // after it says it listens for HTTP).
        #expect(await second.waitForLog("shared listening", timeout: .seconds(120)), "the second server never listened")
        let number = ValidNumbers.numbers(1)[0]
        #expect(
            try await HTTPClient.send("POST", first.baseURL + "/v1/watches", body: #"{"number": "\#(number.digits)"}"#)
                .status == 201)
        let (firstURL, secondURL) = (first.baseURL, second.baseURL)
        let label: @Sendable () async -> String? = {
            guard let answer = try? await HTTPClient.send("GET", secondURL + "/v1/shipments/\(number.digits)"),
                case .string(let label)? = (try? JSON(data: answer.body))?["status"]?["label"]
            else { return nil }
            return label
        }
        // A refresh answers once its check is recorded: then it is in the database, and the second server
        // serves it without asking Yamato.
        #expect(try await HTTPClient.send("POST", firstURL + "/v1/watches/\(number.digits)/refresh").status == 200)
        let posts = upstream.requests.count
        #expect(await label() == "輸送中")
        #expect(upstream.requests.count == posts, "the second server asked Yamato again")

        // The first server learns something new; the second hears of it and serves it, still without asking.
        phase.advance()
        #expect(try await HTTPClient.send("POST", firstURL + "/v1/watches/\(number.digits)/refresh").status == 200)
        // The second server says so once its cache has the new answer.
        let heard = await second.waitForLog(
            #""msg":"shared","last4":"\#(number.digits.suffix(4))","status":"\#(StatusCode.outForDelivery)""#,
            timeout: .seconds(10))
        #expect(heard, "the second server was not told of the new status")
        #expect(await label() == "配達中", "the second server kept serving the old status")
        #expect(upstream.requests.count == posts + 1, "only the first server's refresh reached Yamato")
        let (_, log) = await second.stop()
        #expect(log.contains(#""msg":"shared listening: other servers' answers reach this one""#), "\(log)")
    }

    @Test("a grant from the gate used late is asked for again, so two servers' POSTs still leave an interval apart")
    func staleGrant() async throws {
        let store = try await PostgresWatchStore(url: try PostgresForTests.freshDatabaseURL())
        let (granted, grant) = AsyncStream<Void>.makeStream()
        let (otherLeftGate, otherPassed) = AsyncStream<Void>.makeStream()
        defer { otherPassed.finish() }
        let gateAnswers = Mutex(0)
        // The first grant is held until the other server's POST has left its gate (about an interval later,
        // since the other waits an interval after this grant), as by a server too busy to resume the task in
        // time: a grant used that late is what is tested.
        let late = try PostgresUpstreamBudget(
            database: store.database, carrier: .yamato, maxConcurrent: 2, minimumInterval: .seconds(1), clock: SystemClock(),
            afterGate: {
                guard gateAnswers.withLock({ answers in
                    answers += 1
                    return answers == 1
                })
                else { return }
                grant.yield()
                for await _ in otherLeftGate { break }
            })
        let other = try PostgresUpstreamBudget(
            database: store.database, carrier: .yamato, maxConcurrent: 2, minimumInterval: .seconds(1),
            clock: SystemClock())
        try await late.acquire()
        try await other.acquire()
        async let lateLeft: Void = late.started()
        // The other server comes to the gate once the late one holds its grant.
        for await _ in granted { break }
        await other.started()
        otherPassed.yield()
        await lateLeft
        // The late grant was spent and the gate asked again (which waits its interval from the other's POST), not
        // used an instant after the other's; the gate's own record, on the database's clock, says so too.
        #expect(gateAnswers.withLock { $0 } >= 2, "the late server used its first grant")
        let gateGap = try await store.database.read { connection in
            try connection.run("SELECT shortest_gap FROM upstream_pacing WHERE carrier = 'yamato'").first?.double(0)
        }
        #expect((gateGap ?? 0) >= 1.0, "two POSTs let through \(String(describing: gateGap)) s apart")
        await late.release()
        await other.release()
    }

    @Test("the watch-list commands work on the shared database and ask Yamato within its shared budget")
    func commandLine() async throws {
        let database = try await PostgresForTests.freshDatabaseURL()
        let upstream = try FakeUpstream { request in
            .init(status: 200, body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
        }
        defer { upstream.stop() }
        let numbers = ValidNumbers.numbers(2)
        let added = try await KuronekoBinary.run(
            ["add", "--db", database, "--endpoint", upstream.endpoint] + numbers.map(\.digits))
        #expect(added.status == 0, "\(added.standardError)")
        let listed = try await KuronekoBinary.run(["list", "--db", database, "--json"])
        #expect(listed.status == 0)
        for number in numbers { #expect(listed.standardOutput.contains(number.digits)) }
        // The budget's tables saw the command's POST: the pacing row holds its start.
        let admin = try PostgresConnection(url: database)
        let lastSent = try admin.run("SELECT last_sent FROM upstream_pacing").first?.double(0) ?? 0
        #expect(lastSent > 0)
        #expect(upstream.requests.count == 1)
        // import --watch asks within the same budget: its POST starts after the one reserved before it.
        let sheet = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString).csv")
        let more = ValidNumbers.numbers(2, from: 44_000_000_000)
        try ("n\n" + more.map(\.digits).joined(separator: "\n") + "\n").write(
            to: sheet, atomically: true, encoding: .utf8)
        let imported = try await KuronekoBinary.run([
            "import", sheet.path, "--watch", "--db", database, "--endpoint", upstream.endpoint, "--quiet",
        ])
        #expect(imported.status == 0, "\(imported.standardError)")
        let reserved = try admin.run("SELECT last_sent FROM upstream_pacing").first?.double(0) ?? 0
        #expect(reserved > lastSent, "the import's POST went around the shared budget")
        #expect(upstream.requests.count == 2)
    }

    @Test(
        "the database stopped under load and started again: 503 for the watch list meanwhile, cached lookups go on, no restart needed"
    )
    func databaseOutage() async throws {
        let cluster = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kuroneko-pg-\(UUID().uuidString.prefix(8))"
        ).path
        try await Self.script("start", cluster)
        // At the end, stopped at once (immediate mode) and removed.
        defer { Task.detached { [script = Self.scriptURL] in _ = try? await KuronekoBinary.run(["stop", cluster], executable: script) } }
        let admin = try PostgresConnection(url: "host=\(cluster) user=postgres dbname=postgres")
        try admin.execute("CREATE DATABASE outage")
        let upstream = try FakeUpstream { request in
            .init(status: 200, body: FakeTrackingPage.html(for: FakeTrackingPage.numbers(inFormBody: request.body)))
        }
        defer { upstream.stop() }
        let server = try await ServerProcess([
            "serve", "--db", "postgresql://postgres@/outage?host=\(cluster)", "--endpoint", upstream.endpoint,
            "--min-interval", "0", "--no-web-app",
        ])
        defer { server.terminate() }
        let numbers = ValidNumbers.numbers(2)
        let base = server.baseURL
        #expect(
            try await HTTPClient.send("POST", base + "/v1/watches", body: #"{"number": "\#(numbers[0].digits)"}"#)
                .status == 201)
        #expect(try await HTTPClient.send("GET", base + "/v1/shipments/\(numbers[0].digits)").status == 200)
        #expect(try await HTTPClient.send("GET", base + "/readyz").status == 200)

        try await Self.script("pause", cluster)
        let ready = try await HTTPClient.send("GET", base + "/readyz")
        #expect(ready.status == 503)
        #expect(String(decoding: ready.body, as: UTF8.self).contains("database"))
        for _ in 0..<20 {
            #expect(try await HTTPClient.send("GET", base + "/v1/watches").status == 503)
            #expect(try await HTTPClient.send("GET", base + "/v1/shipments/\(numbers[0].digits)").status == 200)
        }
        // The client is told what failed in words and the request's id; the driver's words are in the log.
        let refused = try await HTTPClient.send("GET", base + "/v1/watches", headers: ["X-Request-ID": "outage-1"])
        let problem = try JSON(data: refused.body)
        #expect(refused.status == 503 && problem["reason"] == .string("store_unavailable"))
        let detail = String(decoding: refused.body, as: UTF8.self)
        #expect(detail.contains("(request outage-1)"), "\(detail)")
        for leak in ["PostgreSQL", "postgres", "libpq", "connection", "StoreError", "SELECT", "socket"] {
            #expect(!detail.contains(leak), "the answer shows \(leak): \(detail)")
        }
        #expect(!String(decoding: ready.body, as: UTF8.self).contains("socket"))

        try await Self.script("resume", cluster)
        #expect(await server.waitForLog("request=outage-1"), "the failure is logged under the request's id")
        #expect(server.logSoFar.contains("store operation=api"))
        // pg_ctl returns once the database takes connections; the server's next use finds its old connections
        // broken and opens new ones, so the first request after the restart already works.
        #expect(try await HTTPClient.send("GET", base + "/readyz").status == 200, "no reconnect on first use")
        #expect(try await HTTPClient.send("GET", base + "/v1/watches").status == 200)
        #expect(
            try await HTTPClient.send("POST", base + "/v1/watches", body: #"{"number": "\#(numbers[1].digits)"}"#)
                .status == 201)

        // A restart nobody noticed (no request while it was down): the pool's idle connections are all
        // broken, and the first requests still work.
        try await Self.script("pause", cluster)
        try await Self.script("resume", cluster)
        #expect(try await HTTPClient.send("GET", base + "/readyz").status == 200)
        #expect(try await HTTPClient.send("GET", base + "/v1/watches").status == 200)
    }

    /// Runs scripts/test-postgres (start, pause, resume, stop) for a cluster of the test's own, on a thread
    /// of its own (pg_ctl waits for the server).
    private static func script(_ command: String, _ directory: String) async throws {
        let script = scriptURL
        let outcome = try await KuronekoBinary.run([command, directory], executable: script)
        guard outcome.status == 0 else { throw ScriptFailure(output: outcome.standardError) }
    }

    private static var scriptURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/test-postgres")
    }

    struct ScriptFailure: Error {
        let output: String
    }

    private static func changeID(of body: Data) -> String? {
        if case .string(let id)? = (try? JSON(data: body))?["id"] { return id }
        return nil
    }
}
