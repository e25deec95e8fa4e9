import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// On a manual clock, both engines: a parcel still out for delivery after its window is late, marked and
/// announced once, counted and listed; a new plan ends it (and its own lateness is said once again); a parcel
/// kept after a missed delivery is reminded of once, the day before it goes back.
@Suite("Late parcels and the kept reminder", .timeLimit(.minutes(5)))
struct LateAndReminderTests {
    /// 2026-12-05 08:00 in Japan.
    static let morning = JapanDateTime(year: 2026, month: 12, day: 5, time: .init(hour: 8, minute: 0))!

    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> JapanDateTime {
        JapanDateTime(year: 2026, month: 12, day: day, time: .init(hour: hour, minute: minute))!
    }

    static func event(_ label: String, _ code: StatusCode, _ at: JapanDateTime) -> TrackingEvent {
        TrackingEvent(label: label, labelEnglish: nil, code: code, at: at, dateText: nil, place: "渋谷センター")
    }

    static func outForDelivery(_ number: TrackingNumber, day: Int, window: (String, String)) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: .outForDelivery, label: "配達中", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: "宅急便",
            scheduledDelivery: ScheduledDelivery(
                raw: "12/\(day) \(window.0)-\(window.1)", date: JapanDateTime(year: 2026, month: 12, day: day),
                windowStart: window.0, windowEnd: window.1),
            events: [event("荷物受付", .infoReceived, at(4, 18)), event("配達中", .outForDelivery, at(day, 8))],
            deliveredAt: nil)
    }

    static func channel() -> NewChannel {
        NewChannel(
            kind: "ntfy", destination: Data(#"{"url":"https://ntfy.example/t"}"#.utf8), numbers: nil,
            kinds: [.exception], language: "ja", quietHours: nil)
    }

    /// The kinds queued for the owner's channel so far, oldest first.
    static func queued(_ store: any WatchStore, channel: Int64) async throws -> [AnnouncementKind] {
        try await store.channelBacklog(channel, limit: 100).map(\.kind)
    }

    @Test(arguments: StoreEngine.available)
    func lateOncePerPlan(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        let channel = try await store.addChannel(Self.channel(), owner: .local, now: Self.morning.instant)
        _ = try await store.add(number, carrier: .yamato, label: "冬靴", owner: .local, webhook: nil, now: Self.morning.instant)
        let seen = Self.at(5, 9).instant
        _ = try await store.record(Self.outForDelivery(number, day: 5, window: ("18:00", "20:00")), fetchedAt: seen) { _, _ in seen }

        // Within the window: not late.
        #expect(try await store.markOverdue(now: Self.at(5, 19, 59).instant, limit: 100) == 0)
        // Past it: late, once.
        #expect(try await store.markOverdue(now: Self.at(5, 20, 1).instant, limit: 100) == 1)
        #expect(try await store.markOverdue(now: Self.at(5, 23).instant, limit: 100) == 0)
        let watch = try #require(try await store.watch(number, owner: .local))
        #expect(watch.overdueAt == Self.at(5, 20, 1).instant)
        var query = WatchQuery()
        query.overdue = true
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.at(5, 21).instant).count == 1)
        #expect(try await store.watchSummary(owner: .local, matching: WatchQuery(), now: Self.at(5, 21).instant).overdue == 1)
        // A searched summary counts the late among what it finds, in the same pass.
        var searched = WatchQuery()
        searched.text = "冬靴"
        #expect(try await store.watchSummary(owner: .local, matching: searched, now: Self.at(5, 21).instant).overdue == 1)
        searched.text = "夏靴"
        #expect(try await store.watchSummary(owner: .local, matching: searched, now: Self.at(5, 21).instant).overdue == 0)
        #expect(try await Self.queued(store, channel: channel.id) == [.overdue])

        // Checked again with the same plan: still late, said no more.
        let again = Self.at(5, 21).instant
        _ = try await store.record(Self.outForDelivery(number, day: 5, window: ("18:00", "20:00")), fetchedAt: again) { _, _ in again }
        #expect(try await store.watch(number, owner: .local)?.overdueAt != nil)
        #expect(try await store.markOverdue(now: Self.at(5, 22).instant, limit: 100) == 0)

        // A new plan (the next day's window) ends the lateness; past its end it is late again, said once more.
        let replanned = Self.at(6, 8).instant
        _ = try await store.record(Self.outForDelivery(number, day: 6, window: ("14:00", "16:00")), fetchedAt: replanned) { _, _ in replanned }
        #expect(try await store.watch(number, owner: .local)?.overdueAt == nil)
        #expect(try await store.markOverdue(now: Self.at(6, 15).instant, limit: 100) == 0)
        #expect(try await store.markOverdue(now: Self.at(6, 16, 30).instant, limit: 100) == 1)
        #expect(try await Self.queued(store, channel: channel.id) == [.overdue, .overdue])
    }

    @Test(arguments: StoreEngine.available)
    func deliveredIsNeverLate(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        _ = try await store.add(number, carrier: .yamato, label: nil, owner: .local, webhook: nil, now: Self.morning.instant)
        var shipment = Self.outForDelivery(number, day: 5, window: ("18:00", "20:00"))
        shipment.status = ShipmentStatus(
            code: .delivered, label: "配達完了", labelEnglish: nil, summary: nil, note: nil, isTerminal: true)
        let seen = Self.at(5, 19).instant
        _ = try await store.record(shipment, fetchedAt: seen) { _, _ in nil }
        #expect(try await store.markOverdue(now: Self.at(7, 0).instant, limit: 100) == 0)
    }

    @Test(arguments: StoreEngine.available)
    func keptReminderOnce(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        let channel = try await store.addChannel(Self.channel(), owner: .local, now: Self.morning.instant)
        _ = try await store.add(number, carrier: .yamato, label: nil, owner: .local, webhook: nil, now: Self.morning.instant)
        let shipment = Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: .attemptFailed, label: "持戻（ご不在）", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: "宅急便", scheduledDelivery: nil,
            events: [
                Self.event("荷物受付", .infoReceived, Self.at(4, 18)), Self.event("配達中", .outForDelivery, Self.at(5, 8)),
                Self.event("持戻（ご不在）", .attemptFailed, Self.at(5, 14)),
            ],
            deliveredAt: nil)
        let seen = Self.at(5, 15).instant
        _ = try await store.record(shipment, fetchedAt: seen) { _, _ in seen }
        // Kept until 12/12: reminded at 09:00 on 12/11, once.
        let reminder = try #require(MissedDelivery(shipment)).reminder
        #expect(reminder.at == Self.at(11, 9).instant)
        #expect(try await store.announceKeptReminders(now: Self.at(11, 8, 59).instant, limit: 100) == 0)
        #expect(try await store.announceKeptReminders(now: Self.at(11, 9, 1).instant, limit: 100) == 1)
        #expect(try await store.announceKeptReminders(now: Self.at(11, 12).instant, limit: 100) == 0)
        // Checked again the same day (the same keeping): not said again.
        let later = Self.at(11, 13).instant
        _ = try await store.record(shipment, fetchedAt: later) { _, _ in later }
        #expect(try await store.announceKeptReminders(now: Self.at(11, 14).instant, limit: 100) == 0)
        let kinds = try await Self.queued(store, channel: channel.id)
        #expect(kinds.filter { $0 == .keptReminder }.count == 1)
    }
}
