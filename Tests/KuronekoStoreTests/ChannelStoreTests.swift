import Foundation
import Kuroneko
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

@testable import KuronekoServer

/// Notification channels in the store, on both engines: each change queued for the owner's channels that
/// hear it, in the change's transaction; claimed in order per channel; ended channels hear nothing more.
@Suite("Channels in the store", .timeLimit(.minutes(10)))
struct ChannelStoreTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)

    private static func shipment(_ number: TrackingNumber, _ code: StatusCode, _ label: String) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: code == .delivered),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    private static func channel(_ kinds: [AnnouncementKind], numbers: [String]? = nil) -> NewChannel {
        NewChannel(
            kind: "ntfy", destination: Data(#"{"url":"https://ntfy.example/t"}"#.utf8), numbers: numbers,
            kinds: kinds, language: "ja", quietHours: nil)
    }

    @Test("a change is queued for each channel that hears it, and claimed once", arguments: StoreEngine.available)
    func fanOut(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.key(1)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let all = try await store.addChannel(Self.channel([.changed]), owner: owner, now: Self.now)
        let deliveredOnly = try await store.addChannel(Self.channel([.delivered]), owner: owner, now: Self.now)
        let otherNumber = try await store.addChannel(
            Self.channel([.changed], numbers: ["111111111111"]), owner: owner, now: Self.now)
        _ = try await store.addChannel(Self.channel([.changed]), owner: .key(2), now: Self.now)
        _ = try await store.add(number, label: "靴", owner: owner, webhook: nil, now: Self.now)
        // The first answer is the watch's baseline; the next two are changes.
        let steps: [(StatusCode, String)] = [(.inTransit, "輸送中"), (.outForDelivery, "配達中"), (.delivered, "配達完了")]
        for (offset, step) in steps.enumerated() {
            let at = Self.now.addingTimeInterval(Double(offset + 1) * 60)
            _ = try await store.record(Self.shipment(number, step.0, step.1), fetchedAt: at) { _, _ in at }
        }
        let later = Self.now.addingTimeInterval(600)
        let first = try await store.claimChannelDeliveries(
            at: later, limit: 10, leaseUntil: later.addingTimeInterval(60), excludingChannels: [])
        // In order per channel: the first claim holds each channel's oldest only.
        #expect(Set(first.map(\.channel.id)) == [all.id, deliveredOnly.id])
        #expect(first.first { $0.channel.id == deliveredOnly.id }?.kind == .delivered)
        #expect(first.first { $0.channel.id == all.id }?.kind == .changed)
        #expect(first.first { $0.channel.id == all.id }?.label == "靴")
        #expect(!first.contains { $0.channel.id == otherNumber.id })
        // Not claimed again meanwhile: leased on PostgreSQL, and the deliverer's busy channels left out.
        #expect(
            try await store.claimChannelDeliveries(
                at: later, limit: 10, leaseUntil: later, excludingChannels: Set(first.map(\.channel.id))
            ).isEmpty)
        for delivery in first {
            try await store.recordChannelAttempt(
                delivery.outboxID, at: later, status: 201, error: nil, durationMilliseconds: 3, delivered: true,
                retryAt: nil)
        }
        let next = try await store.claimChannelDeliveries(
            at: later.addingTimeInterval(120), limit: 10, leaseUntil: later.addingTimeInterval(180),
            excludingChannels: [])
        #expect(next.map(\.channel.id) == [all.id])
        #expect(next.first?.kind == .delivered)
        #expect(try await store.channelDeliveries(of: all.id, owner: owner)?.count == 1)
        #expect(try await store.channelDeliveries(of: all.id, owner: .key(2)) == nil)
    }

    @Test(
        "an ended channel gives up its queue and hears nothing more; the limit and the owner hold",
        arguments: StoreEngine.available)
    func endedAndLimited(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.key(7)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let channel = try await store.addChannel(Self.channel([.changed]), owner: owner, now: Self.now)
        let watch = try await store.add(number, label: nil, owner: owner, webhook: nil, now: Self.now).watch
        #expect(try await store.announce(.arrivingSoon, watch: watch, shipment: Data("{}".utf8), at: Self.now) == 0)
        #expect(try await store.announce(.changed, watch: watch, shipment: Data("{}".utf8), at: Self.now) == 1)
        try await store.endChannel(channel.id, at: Self.now, reason: "the push service answered 410 Gone")
        #expect(
            try await store.claimChannelDeliveries(at: Self.now, limit: 10, leaseUntil: Self.now, excludingChannels: [])
                .isEmpty)
        #expect(try await store.announce(.changed, watch: watch, shipment: Data("{}".utf8), at: Self.now) == 0)
        #expect(try await store.channels(owner: owner).first?.endedReason == "the push service answered 410 Gone")
        #expect(try await store.removeChannel(channel.id, owner: .key(8)) == false)
        #expect(try await store.removeChannel(channel.id, owner: owner))
        for _ in 0..<ChannelLimits.channelsPerOwner {
            _ = try await store.addChannel(Self.channel([.changed]), owner: owner, now: Self.now)
        }
        await #expect(throws: WatchStoreError.channelLimitReached(ChannelLimits.channelsPerOwner)) {
            try await store.addChannel(Self.channel([.changed]), owner: owner, now: Self.now)
        }
        #expect(try await store.setting("vapid", otherwise: "first") == "first")
        #expect(try await store.setting("vapid", otherwise: "second") == "first")
    }

    @Test(
        "arriving soon: within the lead before the window, once per window; a moved window is announced again",
        arguments: StoreEngine.available)
    func arrivingSoon(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.key(3)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        _ = try await store.addChannel(Self.channel([.arrivingSoon]), owner: owner, now: Self.now)
        _ = try await store.addChannel(Self.channel([.changed]), owner: owner, now: Self.now)
        _ = try await store.add(number, label: nil, owner: owner, webhook: nil, now: Self.now)
        func forecast(_ hour: Int) -> Shipment {
            var shipment = Self.shipment(number, .inTransit, "輸送中")
            shipment.scheduledDelivery = ScheduledDelivery(
                raw: "12/03　\(hour):00-\(hour + 2):00", date: JapanDateTime(year: 2026, month: 12, day: 3),
                windowStart: "\(hour):00", windowEnd: "\(hour + 2):00")
            return shipment
        }
        func at(_ hour: Int, _ minute: Int) throws -> Date {
            try #require(JapanDateTime(year: 2026, month: 12, day: 3, time: .init(hour: hour, minute: minute))).instant
        }
        _ = try await store.record(forecast(14), fetchedAt: Self.now) { _, _ in Self.now.addingTimeInterval(3_600) }
        #expect(try await store.announceArrivals(now: try at(13, 20), lead: 1_800, limit: 10) == 0, "40 minutes before")
        #expect(try await store.announceArrivals(now: try at(13, 40), lead: 1_800, limit: 10) == 1, "20 minutes before")
        #expect(try await store.announceArrivals(now: try at(13, 50), lead: 1_800, limit: 10) == 0, "not twice")
        let queued = try await store.claimChannelDeliveries(
            at: try at(13, 55), limit: 10, leaseUntil: try at(13, 56), excludingChannels: [])
        #expect(queued.map(\.kind) == [.arrivingSoon], "only the channel that hears arriving_soon")
        // The window moves to 16:00: a new window, announced again before it.
        let later = Self.now.addingTimeInterval(60)
        _ = try await store.record(forecast(16), fetchedAt: later) { _, _ in later.addingTimeInterval(3_600) }
        #expect(try await store.announceArrivals(now: try at(15, 45), lead: 1_800, limit: 10) == 1)
        #expect(try await store.announceArrivals(now: try at(16, 5), lead: 1_800, limit: 10) == 0, "the window has started")
    }

    @Test(
        "a number its carrier does not know yet waits; after the grace it is a problem, announced once",
        arguments: StoreEngine.available)
    func waitingThenProblem(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.key(7)
        _ = try await store.addChannel(Self.channel([.exception]), owner: owner, now: Self.now)
        let fresh = try TrackingNumber(parsing: "3277-5445-9830")
        let old = ValidNumbers.numbers(1, from: 33_000_000_000)[0]
        _ = try await store.add(old, label: "古い", owner: owner, webhook: nil, now: Self.now.addingTimeInterval(-4 * 86_400))
        _ = try await store.add(fresh, label: "新しい", owner: owner, webhook: nil, now: Self.now)
        for number in [fresh, old] {
            try await store.record(Self.shipment(number, .notFound, "伝票番号未登録"), fetchedAt: Self.now) { _, _ in Self.now }
        }
        #expect(try await store.watch(fresh, owner: owner)?.family == .waiting)
        #expect(try await store.watch(old, owner: owner)?.family == .problem, "added four days ago: past the grace")
        var summary = try await store.watchSummary(owner: owner, matching: WatchQuery(), now: Self.now)
        #expect(summary.byFamily["waiting"] == 1 && summary.byFamily["problem"] == 1)
        var waiting = WatchQuery()
        waiting.families = [.waiting]
        #expect(try await store.watches(owner: owner, matching: waiting, after: nil, limit: 10, now: Self.now).map(\.number) == [fresh])
        // Not yet: the grace runs three days from when it was added.
        #expect(try await store.promoteWaiting(now: Self.now.addingTimeInterval(2 * 86_400), limit: 10) == 0)
        let later = Self.now.addingTimeInterval(3 * 86_400 + 60)
        #expect(try await store.promoteWaiting(now: later, limit: 10) == 1)
        #expect(try await store.promoteWaiting(now: later, limit: 10) == 0, "once")
        #expect(try await store.watch(fresh, owner: owner)?.family == .problem)
        summary = try await store.watchSummary(owner: owner, matching: WatchQuery(), now: later)
        #expect(summary.byFamily["waiting"] == 0 && summary.byFamily["problem"] == 2)
        let due = try await store.claimChannelDeliveries(at: later, limit: 10, leaseUntil: later, excludingChannels: [])
        #expect(due.map(\.kind) == [.exception] && due.first?.label == "新しい")
    }

    @Test(
        "a parcel with no new event for longer than its status allows is stalled, announced once; a new event clears it",
        arguments: StoreEngine.available)
    func stalledUntilItMoves(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.key(8)
        _ = try await store.addChannel(Self.channel([.exception]), owner: owner, now: Self.now)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        _ = try await store.add(number, label: "本", owner: owner, webhook: nil, now: Self.now)
        func moving(_ event: Date) -> Shipment {
            var shipment = Self.shipment(number, .inTransit, "輸送中")
            shipment.events = [
                TrackingEvent(
                    label: "輸送中", labelEnglish: nil, code: .inTransit, at: JapanDateTime(event), dateText: nil,
                    place: "羽田")
            ]
            return shipment
        }
        try await store.record(moving(Self.now), fetchedAt: Self.now) { _, _ in Self.now }
        #expect(try await store.markStalled(now: Self.now.addingTimeInterval(2 * 86_400), limit: 10) == 0)
        let later = Self.now.addingTimeInterval(3 * 86_400 + 120)
        #expect(try await store.markStalled(now: later, limit: 10) == 1)
        #expect(try await store.markStalled(now: later.addingTimeInterval(3_600), limit: 10) == 0, "once per stall")
        #expect(try await store.watch(number, owner: owner)?.stalledAt == later)
        var stalled = WatchQuery()
        stalled.stalled = true
        #expect(try await store.watches(owner: owner, matching: stalled, after: nil, limit: 10, now: later).count == 1)
        #expect(try await store.watchSummary(owner: owner, matching: WatchQuery(), now: later).stalled == 1)
        let due = try await store.claimChannelDeliveries(at: later, limit: 10, leaseUntil: later, excludingChannels: [])
        #expect(due.map(\.kind) == [.stalled])
        // The same answer again changes nothing; a new event ends the stall.
        try await store.record(moving(Self.now), fetchedAt: later) { _, _ in later }
        #expect(try await store.watch(number, owner: owner)?.stalledAt == later)
        try await store.record(moving(later), fetchedAt: later.addingTimeInterval(60)) { _, _ in later }
        #expect(try await store.watch(number, owner: owner)?.stalledAt == nil)
        #expect(try await store.watchSummary(owner: owner, matching: WatchQuery(), now: later).stalled == 0)
    }

    @Test(
        "the server's minute job on a manual clock: a waiting number becomes a problem and a still parcel stalls, each announced once",
        arguments: StoreEngine.available)
    func serverJobOnAManualClock(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let clock = ManualClock(start: Self.now)
        let owner = WatchOwner.key(9)
        _ = try await store.addChannel(Self.channel([.exception]), owner: owner, now: clock.now)
        let unknown = try TrackingNumber(parsing: "3277-5445-9830")
        let still = ValidNumbers.numbers(1, from: 34_000_000_000)[0]
        _ = try await store.add(unknown, label: "未登録", owner: owner, webhook: nil, now: clock.now)
        _ = try await store.add(still, label: "止まる", owner: owner, webhook: nil, now: clock.now)
        try await store.record(Self.shipment(unknown, .notFound, "伝票番号未登録"), fetchedAt: clock.now) { _, _ in Self.now }
        var moving = Self.shipment(still, .inTransit, "輸送中")
        moving.events = [
            TrackingEvent(
                label: "輸送中", labelEnglish: nil, code: .inTransit, at: JapanDateTime(clock.now), dateText: nil,
                place: "羽田")
        ]
        try await store.record(moving, fetchedAt: clock.now) { _, _ in Self.now }
        let announced = Mutex(0)
        let job = Task {
            await WaitingService(store: store, clock: clock, failures: StoreFailures()) {
                announced.withLock { $0 += 1 }
            }.run()
        }
        defer { job.cancel() }
        // The first pass, at the start, finds nothing; then the job sleeps a minute.
        await clock.waitForSleeper(until: .seconds(60))
        #expect(try await store.watch(unknown, owner: owner)?.family == .waiting)
        #expect(try await store.watch(still, owner: owner)?.stalledAt == nil)
        #expect(announced.withLock { $0 } == 0)
        // Three days and a minute on: the pass after the wake promotes and stalls, and the job sleeps again.
        let later: Duration = .seconds(3 * 86_400 + 60)
        clock.advance(by: later)
        await clock.waitForSleeper(until: later + .seconds(60))
        #expect(try await store.watch(unknown, owner: owner)?.family == .problem)
        #expect(try await store.watch(still, owner: owner)?.stalledAt == clock.now)
        #expect(announced.withLock { $0 } >= 1)
        let due = try await store.claimChannelDeliveries(
            at: clock.now, limit: 10, leaseUntil: clock.now, excludingChannels: [])
        #expect(due.count == 1, "one channel: its oldest announcement first")
        let backlog = try await store.channelBacklog(due[0].channel.id, limit: 10)
        #expect(Set(backlog.map(\.kind)) == [.exception, .stalled] && backlog.count == 2)
        // Another minute: nothing more is said.
        clock.advance(by: .seconds(60))
        await clock.waitForSleeper(until: later + .seconds(120))
        #expect(try await store.channelBacklog(due[0].channel.id, limit: 10).count == 2)
    }
}
