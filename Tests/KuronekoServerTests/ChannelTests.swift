import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing
import KuronekoCrypto

/// `/v1/channels` with hostile input, and the deliverer: a change reaches a push subscription encrypted
/// and signed; 410 ends the channel; 429 waits for Retry-After; quiet hours hold what is not urgent.
@Suite("Notification channels", .timeLimit(.minutes(10)))
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
            (
                #"{"kind": "ntfy", "url": "https://ntfy.sh/x", "kinds": ["page_restored"]}"#,
                "page_restored\\\" is not one of changed, delivered, exception, arriving_soon, stalled, overdue, kept_reminder, page_changed"
            ),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "kinds": "page_changed"}"#, "kinds is not a non-empty list"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "numbers": ["12"]}"#, "has 2 digits"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "quiet_hours": "25:00-07:00"}"#, "quiet_hours is not"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "lang": "fr"}"#, "lang is not ja or en"),
            (
                #"{"kind": "web_push", "subscription": {"endpoint": "https://p.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}}"#,
                "subscription.keys"
            ),
            (#"{"kind": "slack", "url": "ftp://hooks.example/x"}"#, "url uses ftp://; only http:// and https://"),
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
        // Naming no kinds hears every parcel's news, not the operator's; the operator's is chosen by name.
        let kinds = try JSON(data: listed.body)["channels"]?.elements.first?["kinds"]?.elements.compactMap(\.string)
        #expect(kinds == ["changed", "delivered", "exception", "arriving_soon", "stalled", "overdue", "kept_reminder"])
        let operatorChannel = await harness.send(
            "POST", "/v1/channels", json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/ops", "kinds": ["page_changed"]}"#)
        #expect(operatorChannel.status == 201, "\(String(decoding: operatorChannel.body, as: UTF8.self))")
        #expect(try JSON(data: operatorChannel.body)["kinds"]?.elements.compactMap(\.string) == ["page_changed"])
        let vapid = await harness.get("/v1/push/vapid-key")
        #expect(vapid.status == 200)
        let key = try #require(try JSON(data: vapid.body)["public_key"])
        #expect(key != .null)
        #expect(await harness.send("DELETE", "/v1/channels/999").status == 404)
        #expect(await harness.send("DELETE", "/v1/channels/abc").status == 404)
        #expect(await harness.get("/v1/channels/1/deliveries").status == 200)
    }

    /// A watch of the owner whose status changes once, by `now` (the harness clock's).
    static func changed(_ store: any WatchStore, owner: WatchOwner, now: Date) async throws -> TrackingNumber {
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
            publicURL: URL(string: "https://parcels.example.jp"), log: ServerLogging.events(format: .text) { line in lines.withLock { $0.append(line) } })
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

/// LINE channels through the API, and a user's own URL answering 404.
@Suite("Channel kinds through the API", .timeLimit(.minutes(10)))
struct ChannelKindTests {
    static let user = "U" + String(repeating: "0123456789abcdef", count: 2)

    @Test("a LINE channel: hostile settings refused by name; the token is never shown; quota and problem are")
    func line() async throws {
        let harness = await Harness()
        let group = "C" + String(repeating: "a", count: 32)
        let refusals: [(String, String)] = [
            (#"{"kind": "line", "to": "broadcast"}"#, "access_token is missing"),
            (#"{"kind": "line", "access_token": "a b", "to": "broadcast"}"#, "access_token is missing or not"),
            (#"{"kind": "line", "access_token": 7, "to": "broadcast"}"#, "access_token is missing or not"),
            (#"{"kind": "line", "access_token": "t"}"#, "to is missing"),
            (#"{"kind": "line", "access_token": "t", "to": "@kuroneko"}"#, "is not a LINE ID"),
            (#"{"kind": "line", "access_token": "t", "to": ["U123"]}"#, "is not a LINE ID"),
            (#"{"kind": "line", "access_token": "t", "to": []}"#, "to is not a list of 1 to 500"),
            (#"{"kind": "line", "access_token": "t", "to": [1]}"#, "to is not a list of 1 to 500"),
            (#"{"kind": "line", "access_token": "t", "to": {"id": 1}}"#, "to is missing"),
            ("{\"kind\": \"line\", \"access_token\": \"t\", \"to\": [\"\(Self.user)\", \"\(group)\"]}", "is a group"),
            ("{\"kind\": \"line\", \"access_token\": \"t\", \"to\": [\"\(Self.user)\", \"\(Self.user)\"]}", "twice"),
            (#"{"kind": "line", "access_token": "t", "to": "broadcast", "url": "https://x.example"}"#,
                "url is not a field of line channels"),
            (#"{"kind": "ntfy", "url": "https://ntfy.sh/x", "to": "broadcast"}"#, "to is not a field of ntfy channels"),
        ]
        for (body, detail) in refusals {
            let answer = await harness.send("POST", "/v1/channels", json: body)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 400 && text.contains(detail), "\(body): \(text)")
        }
        let many = (0..<501).map { String(format: "\"U%032x\"", $0) }.joined(separator: ",")
        let tooMany = await harness.send(
            "POST", "/v1/channels", json: "{\"kind\": \"line\", \"access_token\": \"t\", \"to\": [\(many)]}")
        #expect(tooMany.status == 400)
        let token = "secret-line-token-1234567890"
        let added = await harness.send(
            "POST", "/v1/channels", json: "{\"kind\": \"line\", \"access_token\": \"\(token)\", \"to\": \"\(Self.user)\"}")
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        #expect(!String(decoding: added.body, as: UTF8.self).contains(token))
        let id = try #require(try JSON(data: added.body)["id"]?.int)
        var state = ChannelState()
        state.problem = "LINE answered 401: Authentication failed."
        state.failingSince = harness.clock.now
        state.quota = LineQuota(limit: 200, used: 57, friends: nil, checkedAt: harness.clock.now)
        try await harness.store.setChannelState(Int64(id), state.encoded)
        let listed = await harness.get("/v1/channels")
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(!text.contains(token))
        let channel = try #require(try JSON(data: listed.body)["channels"]?.elements.first)
        #expect(channel["url"] == .string("U0123…"))
        #expect(channel["problem"] == .string("LINE answered 401: Authentication failed."))
        #expect(channel["quota"]?["limit"]?.int == 200 && channel["quota"]?["used"]?.int == 57)
        #expect(channel["digest"] == .bool(false))
        let broadcast = await harness.send(
            "POST", "/v1/channels", json: #"{"kind": "line", "access_token": "t", "to": "broadcast", "lang": "en"}"#)
        #expect(try JSON(data: broadcast.body)["url"] == .string("broadcast"))
    }

    @Test("a user's own URL answering 404 is retried, shown on the channel, and paused only after 24 hours")
    func ownURLNotFound() async throws {
        let harness = await Harness()
        // Added past the API's address check (the name resolves nowhere here); the fake service answers.
        let request = try AddChannelRequest.parse(Data(#"{"kind": "ntfy", "url": "https://ntfy.example/t"}"#.utf8))
        _ = try await harness.store.addChannel(request.channel, owner: .local, now: harness.clock.now)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        _ = try await harness.store.add(number, label: nil, owner: .local, webhook: nil, now: harness.clock.now)
        let watch = try #require(try await harness.store.watch(number, owner: .local))
        let service = ChannelTests.FakeService(Array(repeating: DeliveryOutcome(status: 404, error: "not found"), count: 50))
        let lines = Mutex([String]())
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: service, clock: harness.clock, vapid: nil, publicURL: nil,
            log: ServerLogging.events(format: .text) { line in lines.withLock { $0.append(line) } }, random: { 0 })
        let valid = try JSONEncoder().encode(
            Shipment(
                trackingNumber: number,
                status: ShipmentStatus(
                    code: .inTransit, label: "輸送中", labelEnglish: "In Transit", summary: nil, note: nil, isTerminal: false),
                product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil))
        _ = try await harness.store.announce(.changed, watch: watch, shipment: valid, at: harness.clock.now)
        #expect(await deliverer.deliverOnce() == 1)
        var channel = try #require(try await harness.store.channels(owner: .local).first)
        #expect(channel.endedAt == nil, "one 404 does not end it")
        #expect(ChannelState.decode(channel.state).problem?.contains("404") == true)
        let shown = try JSON(data: await harness.get("/v1/channels").body)["channels"]?.elements.first
        #expect(shown?["failing_since"] != .null)
        for _ in 0..<30 {
            harness.clock.advance(by: .seconds(3_600))
            _ = try await harness.store.announce(.changed, watch: watch, shipment: valid, at: harness.clock.now)
            await deliverer.deliverOnce()
        }
        channel = try #require(try await harness.store.channels(owner: .local).first)
        #expect(channel.endedReason?.hasPrefix("paused after failing for 24 hours") == true)
        #expect(lines.withLock { $0 }.filter { $0.contains("paused after failing for 24 hours") }.count == 1)
    }

    @Test("every registered kind is in the OpenAPI enum (once) and described for the web app's form, which knows no kind")
    func registry() async throws {
        let names = ChannelKindRegistry.standard.names
        #expect(Set(names).count == names.count)
        let harness = await Harness()
        let document = try JSON(data: await harness.get("/openapi.json").body)
        #expect(document["components"]?["schemas"]?["ChannelKind"]?["enum"]?.elements.compactMap(\.string) == names)
        let text = String(decoding: await harness.get("/openapi.json").body, as: UTF8.self)
        #expect(text.components(separatedBy: "\"web_push\"").count == 2, "the kinds are listed once")
        let added = document["paths"]?["/v1/channels"]?["post"]?["requestBody"]?["content"]?["application/json"]?[
            "schema"]
        // Every kind's own fields are documented for the request.
        let documented = Set(added?["properties"]?.keys ?? [])
        #expect(Set(ChannelKindRegistry.standard.fieldNames).isSubset(of: documented), "\(documented)")
        let listed = try JSON(data: await harness.get("/v1/channels").body)
        let described = listed["kinds"]?.elements.compactMap { $0["name"]?.string }
        #expect(described == names)
        let typed = listed["kinds"]?.elements.filter { $0["typed"] == .bool(true) }.compactMap { $0["name"]?.string }
        #expect(typed == names.filter { $0 != "web_push" })
        // The form draws what the server describes: no kind's name or field is written in it.
        let script = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/KuronekoWebApp/Assets/settings.js"), encoding: .utf8)
        let form = String(script[try #require(script.range(of: "function addChannelForm")).lowerBound...])
        for name in names + ChannelKindRegistry.standard.fieldNames {
            #expect(!form.contains("\"\(name)\""), "settings.js's form names \(name)")
        }
    }
}
