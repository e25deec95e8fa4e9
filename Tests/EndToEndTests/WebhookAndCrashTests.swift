import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing
import KuronekoCrypto

/// Webhooks through real sockets to a local receiver that checks signatures, and the watch list surviving
/// `kill -9`.
@Suite("watch lists: webhooks and crashes", .serialized, .timeLimit(.minutes(10)))
struct WebhookAndCrashTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString).sqlite").path
    }

    static func shipment(_ number: TrackingNumber, _ label: String, _ code: StatusCode) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    /// What a receiver does: recompute HMAC-SHA256 over "t.body" and compare.
    private static func verify(_ request: FakeUpstream.Request, secret: String) -> Bool {
        guard let header = request.headers["kuroneko-signature"] else { return false }
        let parts = Dictionary(
            header.split(separator: ",").compactMap { part -> (String, String)? in
                let pair = part.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            }, uniquingKeysWith: { $1 })
        guard let time = parts["t"], let signature = parts["v1"] else { return false }
        return Secrets.hmacSHA256(key: secret, message: Data("\(time).".utf8) + request.body) == signature
    }

    @Test("a change is delivered signed; a receiver that fails gets it again later, in order, each attempt recorded")
    func signedDeliveryAndRetry() async throws {
        let failing = FailSwitch()
        let receiver = try FakeUpstream { _ in
            failing.isOn
                ? .init(status: 500, contentType: "text/plain", body: Data("down".utf8))
                : .init(status: 204, contentType: "text/plain", body: Data())
        }
        defer { receiver.stop() }
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_000_000))
        let number = ValidNumbers.numbers(1)[0]
        let url = "http://127.0.0.1:\(receiver.port)/hooks/kuroneko"
        _ = try await store.add(number, label: nil, owner: .local, webhook: (url, "whsec_test"), now: clock.now)
        let next: @Sendable (Watch, Shipment) -> Date? = { _, _ in clock.now }
        try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: clock.now, nextCheck: next)
        try await store.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: clock.now, nextCheck: next)
        try await store.record(Self.shipment(number, "配達中", .outForDelivery), fetchedAt: clock.now, nextCheck: next)
        let deliverer = WebhookDeliverer(
            store: store, sender: CurlDeliverySender(allowPrivate: true, timeout: 5), clock: clock, random: { 1 })

        failing.isOn = true
        #expect(await deliverer.deliverOnce() == 1)
        #expect(await deliverer.deliverOnce() == 0, "the retry waits its backoff, and the second change its turn")
        failing.isOn = false
        clock.advance(by: .seconds(10))
        #expect(await deliverer.deliverOnce() == 1)
        #expect(await deliverer.deliverOnce() == 1)
        #expect(await deliverer.deliverOnce() == 0)

        let requests = receiver.requests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.path == "/hooks/kuroneko" && Self.verify($0, secret: "whsec_test") })
        #expect(!Self.verify(requests[0], secret: "whsec_other"))
        let bodies = try requests.map { try JSON(data: $0.body) }
        #expect(bodies.allSatisfy { $0["type"] == .string("shipment.status_changed") })
        #expect(bodies[0]["id"] == bodies[1]["id"], "a retry carries the same id")
        #expect(bodies[1]["previous"]?["label"] == .string("荷物受付"))
        #expect(bodies[2]["previous"]?["label"] == .string("輸送中"), "in order per watch")
        #expect(bodies[2]["shipment"]?["status"]?["label"] == .string("配達中"))
        let records = try await #require(try store.deliveries(of: number, owner: .local))
        #expect(records.map(\.status) == [500, 204, 204])
        await #expect(try store.pendingDeliveryCount() == 0)
    }

    @Test("kill -9 while clients add watches: every acknowledged watch is there after a restart, the file is sound")
    func killNine() async throws {
        let path = Self.temporaryPath()
        let first = try await ServerProcess(["serve", "--demo", "--db", path, "--poll-speed", "1000"])
        let numbers = ValidNumbers.numbers(400, from: 61_000_000_000)
        let acknowledged = Acknowledged()
        let port = first.port
        let adding = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for number in numbers[(worker * 100)..<((worker + 1) * 100)] {
                            guard
                                let answer = try? await HTTPClient.send(
                                    "POST", "http://127.0.0.1:\(port)/v1/watches",
                                    body: #"{"number": "\#(number.digits)"}"#)
                            else { return }
                            if answer.status == 201 || answer.status == 200 { acknowledged.add(number) }
                        }
                    }
                }
            }
        }
        #expect(await acknowledged.wait(atLeast: 50), "clients were adding when the server was killed")
        first.send(signal: SIGKILL)
        _ = await first.waitForExit()
        await adding.value
        let seen = acknowledged.all
        let second = try await ServerProcess(["serve", "--demo", "--db", path])
        defer { second.terminate() }
        let store = try SQLiteWatchStore(path: path)
        #expect(try store.database.integrityCheck() == ["ok"])
        let kept = await Set(try store.watches(owner: .local, filter: .all, after: nil, limit: 1_000).map(\.number))
        let lost = seen.subtracting(kept)
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.count) of \(seen.count)")
        print(
            "kill -9: \(seen.count) watches acknowledged before the kill, \(kept.count) in the file after it, none lost"
        )
    }

    @Test("a delivery pending when the server is killed with -9 is delivered after the restart")
    func outboxSurvivesKill() async throws {
        let failing = FailSwitch()
        failing.isOn = true
        let delivered = Acknowledged()
        let refused = Acknowledged()
        let number = ValidNumbers.numbers(1, from: 91_000_000_000)[0]
        let receiver = try FakeUpstream { request in
            if failing.isOn {
                refused.add(number)
                return .init(status: 503, contentType: "text/plain", body: Data("down".utf8))
            }
            if Self.verify(request, secret: "whsec_kill") { delivered.add(number) }
            return .init(status: 204, contentType: "text/plain", body: Data())
        }
        defer { receiver.stop() }
        let path = Self.temporaryPath()
        do {
            let store = try SQLiteWatchStore(path: path)
            let url = "http://127.0.0.1:\(receiver.port)/hook"
            let now = Date()
            _ = try await store.add(number, label: nil, owner: .local, webhook: (url, "whsec_kill"), now: now)
            let later: @Sendable (Watch, Shipment) -> Date? = { _, _ in now.addingTimeInterval(86_400) }
            try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: later)
            try await store.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: later)
            await #expect(try store.pendingDeliveryCount() == 1)
        }
        let first = try await ServerProcess(["serve", "--demo", "--db", path, "--allow-private-webhooks"])
        #expect(await refused.wait(atLeast: 1), "the first server tried the delivery")
        first.send(signal: SIGKILL)
        _ = await first.waitForExit()
        failing.isOn = false
        let second = try await ServerProcess(["serve", "--demo", "--db", path, "--allow-private-webhooks"])
        defer { second.terminate() }
        #expect(await delivered.wait(atLeast: 1), "the restarted server delivered the pending change")
        let store = try SQLiteWatchStore(path: path)
        // The attempt is recorded, then logged, once the receiver's answer is read.
        #expect(await second.waitForLog("result=delivered"))
        await #expect(try store.pendingDeliveryCount() == 0)
        // The kill may come before the first server recorded its refused attempt: then only the second
        // server's attempt is on record (the receiver saw both either way).
        let statuses = try await store.deliveries(of: number, owner: .local)?.map(\.status)
        #expect(statuses == [503, 204] || statuses == [204], "\(String(describing: statuses))")
    }
}

extension WebhookAndCrashTests {
    @Test("a push pending when the server is killed with -9 is delivered, decryptable, after the restart")
    func pushSurvivesKill() async throws {
        let failing = FailSwitch()
        failing.isOn = true
        let browser = try P256KeyPair.generate()
        let auth = Data((0..<16).map { UInt8(200 - $0) })
        let number = ValidNumbers.numbers(1, from: 92_000_000_000)[0]
        let refused = Acknowledged()
        let delivered = Acknowledged()
        let received = Received()
        let receiver = try FakeUpstream { request in
            if failing.isOn {
                refused.add(number)
                return .init(status: 503, contentType: "text/plain", body: Data("down".utf8))
            }
            received.body = request.body
            delivered.add(number)
            return .init(status: 201, contentType: "text/plain", body: Data())
        }
        defer { receiver.stop() }
        let path = Self.temporaryPath()
        do {
            let store = try SQLiteWatchStore(path: path)
            let subscription: [String: Any] = [
                "kind": "web_push", "lang": "en",
                "subscription": [
                    "endpoint": "http://127.0.0.1:\(receiver.port)/push/device",
                    "keys": ["p256dh": Base64URL.encode(browser.publicKey), "auth": Base64URL.encode(auth)],
                ],
            ]
            let channel = try AddChannelRequest.parse(try JSONSerialization.data(withJSONObject: subscription))
            let now = Date()
            _ = try await store.addChannel(channel.channel, owner: .local, now: now)
            _ = try await store.add(number, label: "靴", owner: .local, webhook: nil, now: now)
            let later: @Sendable (Watch, Shipment) -> Date? = { _, _ in now.addingTimeInterval(86_400) }
            try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: later)
            try await store.record(Self.shipment(number, "配達中", .outForDelivery), fetchedAt: now, nextCheck: later)
        }
        let first = try await ServerProcess(["serve", "--demo", "--db", path, "--allow-private-webhooks"])
        #expect(await refused.wait(atLeast: 1), "the first server tried the push")
        first.send(signal: SIGKILL)
        _ = await first.waitForExit()
        failing.isOn = false
        let second = try await ServerProcess(["serve", "--demo", "--db", path, "--allow-private-webhooks"])
        defer { second.terminate() }
        #expect(await delivered.wait(atLeast: 1), "the restarted server sent the pending push")
        let message = try WebPushEncryption.decrypt(try #require(received.body), receiver: browser, auth: auth)
        #expect(try JSON(data: message)["title"] == .string("配達中: 靴 (\(number.formatted))"))
    }
}

/// The last body a receiver was sent.
private final class Received: Sendable {
    private let last = Mutex<Data?>(nil)
    var body: Data? {
        get { last.withLock { $0 } }
        set { last.withLock { $0 = newValue } }
    }
}

/// A switch the receiver reads on its own thread.
private final class FailSwitch: @unchecked Sendable {
    // @unchecked Sendable: one Bool behind a lock.
    private let lock = NSLock()
    private var on = false
    var isOn: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }
}

/// Numbers whose add was acknowledged, and a wait for enough of them.
private final class Acknowledged: @unchecked Sendable {
    // @unchecked Sendable: the set behind a lock.
    private let lock = NSLock()
    private var numbers = Set<TrackingNumber>()
    private let arrived = DispatchSemaphore(value: 0)

    func add(_ number: TrackingNumber) {
        lock.withLock { _ = numbers.insert(number) }
        arrived.signal()
    }

    var all: Set<TrackingNumber> { lock.withLock { numbers } }

    func wait(atLeast count: Int) async -> Bool {
        await onOwnThread { [self] in
            while all.count < count {
                if arrived.wait(timeout: .now() + .seconds(30)) == .timedOut { return false }
            }
            return true
        }
    }
}
