import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

/// LINE channels against a stand-in for the Messaging API, through the real client: push and broadcast, a
/// retried message whose answer was lost (not delivered twice), the month's quota, the daily digest when it
/// runs short, the monthly limit's hold, and a refused token shown on the channel.
@Suite("LINE channels", .serialized, .timeLimit(.minutes(10)))
struct LineChannelTests {
    static let user = "U" + String(repeating: "4af4980629", count: 4).prefix(32)
    /// 2026-12-02 10:00 Japan time.
    static let morning = Date(timeIntervalSince1970: 1_796_173_200)

    struct Setup {
        let store: SQLiteWatchStore
        let clock: ManualClock
        let line: LineStandIn
        let deliverer: ChannelDeliverer
        let lines: LogLines
        let watch: Watch
    }

    private static func setup(line: LineStandIn, start: Date = morning) async throws -> Setup {
        let store = try SQLiteWatchStore(path: WebhookAndCrashTests.temporaryPath())
        let clock = ManualClock(start: start)
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: "絵本", owner: .local, webhook: nil, now: clock.now)
        let watch = try #require(try await store.watch(number, owner: .local))
        let lines = LogLines()
        // Private addresses refused: LINE's origin is the operator's setting, not an owner's URL, so the stand-in
        // on 127.0.0.1 is reached all the same.
        let deliverer = ChannelDeliverer(
            store: store, sender: CurlDeliverySender(allowPrivate: false, timeout: 5), clock: clock, vapid: nil,
            publicURL: URL(string: "https://parcels.example.jp"),
            offer: ChannelOffer(server: ChannelServer(settings: ["line": ["origin": line.origin.absoluteString]])),
            log: ServerLogging.events(format: .text) { lines.add($0) },
            random: { 0 })
        return Setup(store: store, clock: clock, line: line, deliverer: deliverer, lines: lines, watch: watch)
    }

    private static func addLine(_ setup: Setup, to: Any, token: String? = nil) async throws -> ChannelRecord {
        let body = try JSONSerialization.data(withJSONObject: [
            "kind": "line", "access_token": token ?? setup.line.token, "to": to, "lang": "ja",
        ])
        let request = try AddChannelRequest.parse(body)
        return try await setup.store.addChannel(request.channel, owner: .local, now: setup.clock.now)
    }

    private static func announce(_ setup: Setup, _ label: String = "輸送中", _ code: StatusCode = .inTransit) async throws {
        let shipment = try JSONEncoder().encode(WebhookAndCrashTests.shipment(setup.watch.number, label, code))
        _ = try await setup.store.announce(.changed, watch: setup.watch, shipment: shipment, at: setup.clock.now)
    }

    private static func state(_ setup: Setup, _ id: Int64) async throws -> ChannelState {
        let channel = try #require(try await setup.store.channels(owner: .local).first { $0.id == id })
        return ChannelState.decode(channel.state)
    }

    @Test("a change reaches a user ID by push and every friend by broadcast; the month's quota is read and kept")
    func pushAndBroadcast() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        let setup = try await Self.setup(line: line)
        let pushed = try await Self.addLine(setup, to: Self.user)
        let broadcast = try await Self.addLine(setup, to: "broadcast")
        try await Self.announce(setup)
        #expect(await setup.deliverer.deliverOnce() == 2)
        let accepted = line.accepted.sorted { $0.endpoint < $1.endpoint }
        try #require(
            accepted.map(\.endpoint) == ["broadcast", "push"],
            "\(setup.lines.snapshot) \(line.requests.map { "\($0.method) \($0.path)" })")
        #expect(accepted[1].to == [Self.user])
        #expect(accepted.allSatisfy { $0.text.contains("輸送中: 絵本") && $0.text.contains("https://parcels.example.jp/parcel/") })
        #expect(accepted.allSatisfy { $0.retryKey.flatMap(UUID.init(uuidString:)) != nil })
        #expect(line.change { $0.used } == 1 + 3, "a push costs one, a broadcast one per friend")
        let pushState = try await Self.state(setup, pushed.id)
        #expect(pushState.quota?.limit == 200)
        // Read before sending (0, or 3 when the broadcast, delivered at the same time, was counted first by LINE),
        // counted after (+1).
        #expect([1, 4].contains(pushState.quota?.used ?? -1), "\(String(describing: pushState.quota))")
        let broadcastState = try await Self.state(setup, broadcast.id)
        #expect(broadcastState.quota?.friends == 3)
        #expect(broadcastState.sentThisMonth == 1)
        // Read at most three times an hour: the next message does not ask again.
        let asked = line.requests.filter { $0.path.hasPrefix("/v2/bot/message/quota") }.count
        try await Self.announce(setup, "配達中", .outForDelivery)
        #expect(await setup.deliverer.deliverOnce() == 2)
        #expect(line.requests.filter { $0.path.hasPrefix("/v2/bot/message/quota") }.count == asked)
        // No token anywhere in the log.
        #expect(!setup.lines.snapshot.joined().contains(line.token))
    }

    @Test("an accepted push whose answer is lost is retried with the same key and not delivered twice")
    func lostAnswer() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        let setup = try await Self.setup(line: line)
        let channel = try await Self.addLine(setup, to: Self.user)
        try await Self.announce(setup)
        line.change { $0.loseNextAnswer = true }
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.count == 1, "LINE took it")
        let first = try #require(try await setup.store.channelDeliveries(of: channel.id, owner: .local))
        #expect(first.last?.state == "pending", "no answer: to be retried")
        setup.clock.advance(by: .seconds(60))
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.count == 1, "the retry was recognised by its key")
        let keys = line.requests.filter { $0.method == "POST" }.map { $0.headers["x-line-retry-key"] }
        #expect(keys.count == 2 && keys[0] == keys[1])
        let records = try #require(try await setup.store.channelDeliveries(of: channel.id, owner: .local))
        #expect(records.last?.status == 409 && records.last?.state == "delivered")
    }

    @Test("running low switches to one digest a day at 20:00, which says why once and folds every change")
    func digest() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        line.change { $0.used = 195 }
        let setup = try await Self.setup(line: line)
        let channel = try await Self.addLine(setup, to: Self.user)
        for (label, code) in [("荷物受付", StatusCode.infoReceived), ("輸送中", .inTransit), ("配達中", .outForDelivery)] {
            try await Self.announce(setup, label, code)
        }
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.isEmpty, "held for the digest")
        let state = try await Self.state(setup, channel.id)
        #expect(state.digestSince != nil)
        // 2026-12-02 20:00 Japan time.
        #expect(state.nextDigest == Date(timeIntervalSince1970: 1_796_209_200))
        #expect(setup.lines.snapshot.contains { $0.contains("digest=on left=5") })
        #expect(await setup.deliverer.deliverOnce() == 0, "nothing before 20:00")
        setup.clock.advance(by: .seconds(10 * 3_600))
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.count == 1, "one message for three changes")
        let text = try #require(line.accepted.first?.text)
        #expect(text.contains("残り5通") && text.contains("荷物受付") && text.contains("輸送中") && text.contains("配達中"))
        let records = try #require(try await setup.store.channelDeliveries(of: channel.id, owner: .local))
        #expect(Set(records.filter { $0.state == "delivered" }.map(\.changeID)).count == 3)
        #expect(try await setup.store.channelBacklog(channel.id, limit: 100).isEmpty)
    }

    @Test("LINE's rate limit (a 429 without Retry-After) is tried again after a minute, not before")
    func rateLimit() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        line.change { $0.rateLimited = 1 }
        let setup = try await Self.setup(line: line)
        _ = try await Self.addLine(setup, to: Self.user)
        try await Self.announce(setup)
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.isEmpty)
        setup.clock.advance(by: .seconds(45))
        #expect(await setup.deliverer.deliverOnce() == 0, "not before a minute")
        setup.clock.advance(by: .seconds(30))
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.count == 1)
    }

    @Test("LINE's monthly-limit 429 holds the channel until the month turns in Japan")
    func monthlyLimit() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        line.change { $0.refuseMonthly = true }
        let setup = try await Self.setup(line: line)
        let channel = try await Self.addLine(setup, to: Self.user)
        try await Self.announce(setup)
        #expect(await setup.deliverer.deliverOnce() == 1)
        let state = try await Self.state(setup, channel.id)
        // 2027-01-01 00:00 Japan time.
        #expect(state.heldUntil == Date(timeIntervalSince1970: 1_798_729_200))
        #expect(state.problem?.contains("monthly") == true)
        setup.clock.advance(by: .seconds(20 * 86_400))
        #expect(await setup.deliverer.deliverOnce() == 0, "still December")
        line.change {
            $0.refuseMonthly = false
            $0.used = 0
        }
        setup.clock.advance(by: .seconds(10 * 86_400))
        #expect(await setup.deliverer.deliverOnce() == 1)
        #expect(line.accepted.count == 1)
        #expect(try await Self.state(setup, channel.id).problem == nil)
    }

    @Test("a refused token shows LINE's reason on the channel; the channel pauses after 24 hours of it")
    func badToken() async throws {
        let line = try LineStandIn()
        defer { line.stop() }
        let setup = try await Self.setup(line: line)
        let channel = try await Self.addLine(setup, to: Self.user, token: "not-the-token")
        try await Self.announce(setup)
        #expect(await setup.deliverer.deliverOnce() == 1)
        let state = try await Self.state(setup, channel.id)
        #expect(
            state.problem
                == "LINE answered 401: Authentication failed. Confirm that the access token in the authorization header is valid."
        )
        #expect(line.accepted.isEmpty)
        #expect(!setup.lines.snapshot.joined().contains("not-the-token"))
        // The quota, refused too, is not asked again on the next attempt: at most three times an hour.
        let quotaAsked = { line.requests.filter { $0.path.hasPrefix("/v2/bot/message/quota") }.count }
        let asked = quotaAsked()
        #expect(asked > 0)
        for _ in 0..<3 {
            setup.clock.advance(by: .seconds(300))
            try await Self.announce(setup)
            await setup.deliverer.deliverOnce()
        }
        #expect(quotaAsked() == asked, "the quota was asked again within 20 minutes")
        for _ in 0..<12 {
            setup.clock.advance(by: .seconds(3 * 3_600))
            try await Self.announce(setup)
            await setup.deliverer.deliverOnce()
        }
        let ended = try #require(try await setup.store.channels(owner: .local).first { $0.id == channel.id })
        #expect(ended.endedReason?.hasPrefix("paused after failing for 24 hours: LINE answered 401") == true)
        #expect(setup.lines.snapshot.contains { $0.contains("paused after failing for 24 hours") })
    }
}
