import Foundation
import Kuroneko
import KuronekoStore
import KuronekoTestSupport
import Testing

/// What changed in a list since a cursor, on both engines: an add, a new answer, a relabel and a removal are
/// changes; a check that finds the same answer, a postponed check and another owner's list are not.
@Suite("Changes since a cursor", .timeLimit(.minutes(5)))
struct WatchChangesTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// Past PostgreSQL's settle, so every change counts as committed.
    var later: Date { Date().addingTimeInterval(60) }

    func shipment(_ number: TrackingNumber, _ label: String, _ code: StatusCode, place: String) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: "宅急便", scheduledDelivery: nil,
            events: [
                TrackingEvent(
                    label: label, labelEnglish: nil, code: code,
                    at: JapanDateTime(year: 2026, month: 11, day: 20, time: .init(hour: 9, minute: 0)), dateText: nil,
                    place: place)
            ],
            deliveredAt: nil)
    }

    @Test(arguments: StoreEngine.available)
    func followed(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(3)
        let start = try await store.changes(owner: .local, since: nil, limit: 100, now: later)
        #expect(start.watches.isEmpty && start.removed.isEmpty && !start.more)

        // Two adds: both come, in order, and the cursor moves past them.
        _ = try await store.add(numbers[0], label: "靴", owner: .local, webhook: nil, now: now)
        _ = try await store.add(numbers[1], label: nil, owner: .local, webhook: nil, now: now)
        let added = try await store.changes(owner: .local, since: start.cursor, limit: 100, now: later)
        #expect(added.watches.map(\.number) == [numbers[0], numbers[1]])
        #expect(added.cursor > start.cursor)
        #expect(try await store.changes(owner: .local, since: added.cursor, limit: 100, now: later).watches.isEmpty)

        // An answer is a change; the same answer again is not; another answer is.
        let moving = shipment(numbers[0], "輸送中", .inTransit, place: "羽田")
        _ = try await store.record(moving, fetchedAt: now) { _, _ in now.addingTimeInterval(3_600) }
        let answered = try await store.changes(owner: .local, since: added.cursor, limit: 100, now: later)
        #expect(answered.watches.map(\.number) == [numbers[0]])
        _ = try await store.record(moving, fetchedAt: now.addingTimeInterval(60)) { _, _ in now.addingTimeInterval(7_200) }
        try await store.postpone(numbers[1], until: now.addingTimeInterval(9_000))
        let same = try await store.changes(owner: .local, since: answered.cursor, limit: 100, now: later)
        #expect(same.watches.isEmpty && same.cursor == answered.cursor)
        let moved = shipment(numbers[0], "輸送中", .inTransit, place: "厚木")
        _ = try await store.record(moved, fetchedAt: now.addingTimeInterval(120)) { _, _ in nil }
        let again = try await store.changes(owner: .local, since: answered.cursor, limit: 100, now: later)
        #expect(again.watches.map(\.number) == [numbers[0]])

        // A relabel and a removal; another owner's list is not this one's.
        _ = try await store.update(numbers[1], owner: .local, label: .some("傘"), webhook: nil, now: now)
        _ = try await store.remove(numbers[0], owner: .local)
        let other = WatchOwner(id: "key:other")
        _ = try await store.add(numbers[2], label: nil, owner: other, webhook: nil, now: now)
        let last = try await store.changes(owner: .local, since: again.cursor, limit: 100, now: later)
        #expect(last.watches.map(\.label) == ["傘"])
        #expect(last.removed == [numbers[0].digits])
        #expect(try await store.changes(owner: other, since: 0, limit: 100, now: later).watches.map(\.number) == [numbers[2]])

        // Removed and watched again: there, not removed. A page at a time, `more` saying more follow.
        _ = try await store.add(numbers[0], label: "靴", owner: .local, webhook: nil, now: now)
        let back = try await store.changes(owner: .local, since: again.cursor, limit: 100, now: later)
        #expect(Set(back.watches.map(\.number)) == [numbers[0], numbers[1]] && back.removed.isEmpty)
        let first = try await store.changes(owner: .local, since: again.cursor, limit: 1, now: later)
        #expect(first.watches.count + first.removed.count == 1 && first.more)
        let rest = try await store.changes(owner: .local, since: first.cursor, limit: 100, now: later)
        #expect(!rest.more && rest.cursor == back.cursor)

        // A cursor past the list's latest change, or older than the removals kept, cannot be followed.
        await #expect(throws: WatchStoreError.changesAhead(back.cursor + 1_000)) {
            try await store.changes(owner: .local, since: back.cursor + 1_000, limit: 100, now: later)
        }
        #expect(try await store.forgetRemovals(before: Date().addingTimeInterval(86_400), limit: 100) == 1)
        await #expect(throws: WatchStoreError.changesForgotten(again.cursor)) {
            try await store.changes(owner: .local, since: again.cursor, limit: 100, now: later)
        }
        #expect(try await store.changes(owner: .local, since: back.cursor, limit: 100, now: later).watches.isEmpty)
    }

    @Test("PostgreSQL: a change younger than the settle is given, but the cursor stays before it")
    func settles() async throws {
        guard let engine = StoreEngine.available.first(where: { $0 == .postgres }) else { return }
        let store = try await engine.makeStore().store
        let start = try await store.changes(owner: .local, since: nil, limit: 100, now: Date())
        // Asked as of a moment before the add: the change is younger than the settle however slow the machine.
        let beforeTheAdd = Date()
        _ = try await store.add(ValidNumbers.numbers(1)[0], label: nil, owner: .local, webhook: nil, now: now)
        let young = try await store.changes(owner: .local, since: start.cursor, limit: 100, now: beforeTheAdd)
        #expect(young.watches.count == 1 && young.cursor == start.cursor)
        let settled = try await store.changes(owner: .local, since: start.cursor, limit: 100, now: later)
        #expect(settled.watches.count == 1 && settled.cursor > start.cursor)
    }
}
