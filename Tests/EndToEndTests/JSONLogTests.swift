import Foundation
import Kuroneko
import KuronekoStore
import KuronekoTestSupport
import Testing

/// The JSON log as a log shipper reads it: every line one object, its message whole, values as typed fields.
@Suite("the JSON log", .serialized, .timeLimit(.minutes(10)))
struct JSONLogTests {
    @Test("webhook attempts, delivered and failed, are JSON lines whose message is whole and whose values are fields")
    func deliveryEvents() async throws {
        let receiver = try FakeUpstream { _ in .init(status: 204, contentType: "text/plain", body: Data()) }
        defer { receiver.stop() }
        let path = WebhookAndCrashTests.temporaryPath()
        let numbers = ValidNumbers.numbers(2, from: 93_000_000_000)
        do {
            let store = try SQLiteWatchStore(path: path)
            let now = Date()
            let later: @Sendable (Watch, Shipment) -> Date? = { _, _ in now.addingTimeInterval(86_400) }
            // One receiver answers; the other address refuses the connection (no status: null in JSON).
            let urls = ["http://127.0.0.1:\(receiver.port)/hook", "http://127.0.0.1:1/hook"]
            for (number, url) in zip(numbers, urls) {
                _ = try await store.add(number, label: nil, owner: .local, webhook: (url, "whsec_json"), now: now)
                try await store.record(
                    WebhookAndCrashTests.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: later)
                try await store.record(
                    WebhookAndCrashTests.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: later)
            }
        }
        let server = try await ServerProcess([
            "serve", "--demo", "--db", path, "--allow-private-webhooks", "--log-format", "json",
        ])
        #expect(await server.waitForLog(#""result":"delivered""#))
        #expect(await server.waitForLog(#""status":null"#))
        let (status, log) = await server.stop()
        #expect(status == 0)
        let objects = try log.split(separator: "\n").map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not one JSON object: \(line)")
        }
        let attempts = objects.filter { $0["msg"] as? String == "webhook" }
        #expect(attempts.count >= 2, "\(attempts)")
        for attempt in attempts {
            // Exactly the fields of an attempt: nothing made of a message's words.
            #expect(Set(attempt.keys) == ["time", "level", "msg", "change", "attempt", "status", "result"], "\(attempt)")
            #expect(attempt["attempt"] is Int && (attempt["status"] is Int || attempt["status"] is NSNull))
        }
        #expect(attempts.contains { $0["status"] as? Int == 204 && $0["result"] as? String == "delivered" })
        #expect(attempts.contains { $0["status"] is NSNull && $0["result"] as? String == "retry" })
        // ServerProcess has checked every line (one object, no word of a sentence made a field).
        let messages = objects.compactMap { $0["msg"] as? String }
        #expect(messages.contains { $0.hasPrefix("no account yet: http://127.0.0.1:\(server.port)/join#inv_") })
        #expect(messages.contains { $0.hasPrefix("SIGTERM received: refusing new connections") })
    }
}
