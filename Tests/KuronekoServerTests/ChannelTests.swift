import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

/// `/v1/channels` with hostile input, and the deliverer: a change reaches a push subscription encrypted
/// and signed; 410 ends the channel; 429 waits for Retry-After; quiet hours hold what is not urgent.
@Suite("Notification channels", .timeLimit(.minutes(1)))
struct ChannelTests {
    /// Records every request and answers as told.
    final class FakeService: ChannelSender {
        let answers: Mutex<[DeliveryOutcome]>
        let requests = Mutex<[ChannelRequest]>([])
        init(_ answers: [DeliveryOutcome]) { self.answers = Mutex(answers) }
        func send(_ request: ChannelRequest) async -> DeliveryOutcome {
            requests.withLock { $0.append(request) }
            return answers.withLock { $0.isEmpty ? DeliveryOutcome(status: 201, error: nil) : $0.removeFirst() }
        }
    }

    private static func subscription(_ keys: P256KeyPair, auth: Data) -> String {
        #"{"kind": "web_push", "lang": "en", "subscription": {"endpoint": "http://127.0.0.1:9/push/abc", "keys": {"p256dh": ""#
            + Base64URL.encode(keys.publicKey) + #"", "auth": ""# + Base64URL.encode(auth) + #""}}}"#
    }

    @Test("hostile bodies are refused by name; a good one is 201 and never shows its keys again")
    func adding() async throws {
        let harness = await Harness()
        let refusals: [(String, String)] = [
            ("[]", "not a JSON object"), (#"{"kind": "sms"}"#, "kind is missing or not one of"),
            (#"{"kind": "ntfy"}"#, "url is missing"), (#"{"kind": "ntfy", "url": 7}"#, "url is missing"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "extra": 1}"#, "unknown field"),
            (
                #"{"kind": "ntfy", "url": "https://ntfy.sh/x", "kinds": ["everything"]}"#,
                "is not one of changed, delivered"
            ),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "numbers": ["12"]}"#, "has 2 digits"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "quiet_hours": "25:00-07:00"}"#, "quiet_hours is not"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "lang": "fr"}"#, "lang is not ja or en"),
            (
                #"{"kind": "web_push", "subscription": {"endpoint": "https://p.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}}"#,
                "subscription.keys"
            ),
            (#"{"kind": "slack", "url": "ftp://hooks.example/x"}"#, "http"),
        ]
        for (body, detail) in refusals {
            let answer = await harness.send("POST", "/v1/channels", json: body)
            #expect(answer.status == 400, "\(body)")
            #expect(
                String(decoding: answer.body, as: UTF8.self).contains(detail),
                "\(body): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let huge =
            #"{"kind": "ntfy", "url": "https://ntfy.sh/x", "numbers": ["#
            + String(repeating: #""3277-5445-9830","#, count: 1_500) + #""3277-5445-9830"]}"#
        #expect(await harness.send("POST", "/v1/channels", json: huge).status == 400)
        let keys = try P256KeyPair.generate()
        let added = await harness.send("POST", "/v1/channels", json: Self.subscription(keys, auth: Data(count: 16)))
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let text = String(decoding: added.body, as: UTF8.self)
        #expect(!text.contains(Base64URL.encode(keys.publicKey)) && !text.contains("/push/abc"))
        let listed = await harness.get("/v1/channels")
        #expect(try JSON(data: listed.body)["channels"]?.elements.count == 1)
        let vapid = await harness.get("/v1/push/vapid-key")
        #expect(vapid.status == 200)
        let key = try #require(try JSON(data: vapid.body)["public_key"])
        #expect(key != .null)
        #expect(await harness.send("DELETE", "/v1/channels/999").status == 404)
        #expect(await harness.send("DELETE", "/v1/channels/abc").status == 404)
        #expect(await harness.get("/v1/channels/1/deliveries").status == 200)
    }

    /// A watch of the owner whose status changes once, by `now` (the harness clock's).
    private static func changed(_ store: any WatchStore, owner: WatchOwner, now: Date) async throws -> TrackingNumber {
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let start = now.addingTimeInterval(-600)
        _ = try await store.add(number, label: "靴", owner: owner, webhook: nil, now: start)
        for (offset, (code, label)) in [(StatusCode.inTransit, "輸送中"), (.delivered, "配達完了")].enumerated() {
            let at = start.addingTimeInterval(Double(offset + 1) * 60)
            let shipment = Shipment(
                trackingNumber: number,
                status: ShipmentStatus(
                    code: code, label: label, labelEnglish: label == "配達完了" ? "Delivered" : "In Transit",
                    summary: nil, note: nil, isTerminal: code == .delivered),
                product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
            _ = try await store.record(shipment, fetchedAt: at) { _, _ in at }
        }
        return number
    }

    @Test("a change reaches the push service encrypted for the subscription, with VAPID; 410 ends the channel")
    func pushDelivered() async throws {
        let harness = await Harness()
        let browser = try P256KeyPair.generate()
        let auth = Data((0..<16).map { UInt8($0) })
        _ = await harness.send("POST", "/v1/channels", json: Self.subscription(browser, auth: auth))
        _ = try await Self.changed(harness.store, owner: .local, now: harness.clock.now)
        let vapid = VAPID(keys: try P256KeyPair.generate(), subject: "mailto:ops@example.jp")
        let fake = FakeService([DeliveryOutcome(status: 201, error: nil), DeliveryOutcome(status: 410, error: "gone")])
        let lines = Mutex([String]())
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: vapid,
            publicURL: URL(string: "https://parcels.example.jp"), log: { line in lines.withLock { $0.append(line) } })
        #expect(await deliverer.deliverOnce() == 1)
        let request = try #require(fake.requests.withLock { $0.first })
        let payload = try WebPushEncryption.decrypt(request.body, receiver: browser, auth: auth)
        let object = try JSON(data: payload)
        #expect(object["title"] == .string("Delivered: 靴 (3277-5445-9830)"))
        #expect(object["url"] == .string("https://parcels.example.jp/parcel/327754459830"))
        let token = try #require(request.headers["Authorization"]?.firstMatch(of: /^vapid t=([^,]+),/)).1
        #expect(
            VAPID.verify(
                String(token), publicKey: vapid.keys.publicKey, audience: "http://127.0.0.1:9", now: harness.clock.now)
                != nil)
        #expect(deliverer.statistics.delivered == 1)
        // The next announcement: the service says the subscription is gone.
        _ = try await harness.store.announce(
            .changed,
            watch: try #require(try harness.store.watch(try TrackingNumber(parsing: "327754459830"), owner: .local)),
            shipment: try #require(
                try harness.store.watch(try TrackingNumber(parsing: "327754459830"), owner: .local)?.latest?.json),
            at: harness.clock.now)
        #expect(await deliverer.deliverOnce() == 1)
        let channel = try await #require(try harness.store.channels(owner: .local).first)
        #expect(channel.endedReason?.contains("410") == true)
        #expect(
            lines.withLock { $0 } == [
                "channel id=\(channel.id) kind=web_push announcement=delivered attempt=1 status=201 result=delivered",
                "channel id=\(channel.id) kind=web_push announcement=changed attempt=1 status=410 result=ended",
            ])
    }

    @Test("429 with Retry-After waits at least that long; quiet hours hold what is not urgent")
    func waits() async throws {
        let harness = await Harness()
        _ = await harness.send(
            "POST", "/v1/channels", json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/topic", "kinds": ["changed"]}"#)
        _ = try await Self.changed(harness.store, owner: .local, now: harness.clock.now)
        let fake = FakeService([DeliveryOutcome(status: 429, error: "slow down", retryAfter: 1_800)])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: nil, publicURL: nil)
        #expect(await deliverer.deliverOnce() == 1)
        // Backoff alone would try again within 10 s; the service asked for half an hour.
        harness.clock.advance(by: .seconds(60))
        #expect(await deliverer.deliverOnce() == 0, "not before Retry-After")
        let channel = try await #require(try harness.store.channels(owner: .local).first)
        let attempts = try await #require(try harness.store.channelDeliveries(of: channel.id, owner: .local))
        #expect(attempts.map(\.status) == [429])
        #expect(attempts.first?.state == "pending")
        harness.clock.advance(by: .seconds(1_800))
        #expect(await deliverer.deliverOnce() == 1, "tried again once Retry-After has passed")
        let quiet = try #require(QuietHours("22:00-07:00"))
        let late = try #require(JapanDateTime(year: 2026, month: 12, day: 1, time: .init(hour: 23, minute: 30))).instant
        #expect(
            quiet.end(after: late)
                == JapanDateTime(year: 2026, month: 12, day: 2, time: .init(hour: 7, minute: 0))?.instant)
        let noon = try #require(JapanDateTime(year: 2026, month: 12, day: 1, time: .init(hour: 12, minute: 0))).instant
        #expect(quiet.end(after: noon) == nil)
        #expect(QuietHours("07:00-07:00") == nil)
    }

    @Test("quiet hours hold what is not urgent until they end; the kinds the owner marks urgent go through")
    func quietHours() async throws {
        let harness = await Harness()
        let now = JapanDateTime(harness.clock.now)
        let hour = now.time?.hour ?? 0
        let quiet = String(format: "%02d:00-%02d:00", (hour + 23) % 24, (hour + 2) % 24)
        let bodies = [
            #"{"kind": "ntfy", "url": "http://127.0.0.1:9/held", "quiet_hours": "\#(quiet)"}"#,
            #"{"kind": "ntfy", "url": "http://127.0.0.1:9/marked", "quiet_hours": "\#(quiet)", "urgent": ["delivered"]}"#,
        ]
        for body in bodies { #expect(await harness.send("POST", "/v1/channels", json: body).status == 201) }
        let refused = await harness.send(
            "POST", "/v1/channels", json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/x", "urgent": ["soon"]}"#)
        #expect(refused.status == 400)
        _ = try await Self.changed(harness.store, owner: .local, now: harness.clock.now)
        let fake = FakeService([])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: nil, publicURL: nil)
        #expect(await deliverer.deliverOnce() == 2)
        #expect(
            fake.requests.withLock { $0.map(\.url.path) } == ["/marked"], "only the channel marking delivered urgent")
        let held = try await #require(try harness.store.channelDeliveries(of: 1, owner: .local))
        #expect(held.first?.error == "held for the channel's quiet hours")
        let listed = try JSON(data: await harness.get("/v1/channels").body)["channels"]?.elements ?? []
        #expect(listed.map { $0["urgent"] } == [.null, .array([.string("delivered")])])
        // Nothing more while the hours last; once they end, the held message goes.
        harness.clock.advance(by: .seconds(1_800))
        #expect(await deliverer.deliverOnce() == 0)
        harness.clock.advance(by: .seconds(3 * 3_600))
        #expect(await deliverer.deliverOnce() == 1)
        #expect(fake.requests.withLock { $0.map(\.url.path) } == ["/marked", "/held"])
    }
}
