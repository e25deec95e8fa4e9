import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// Customer notices in the store, on both engines: queued in the answer's transaction once per parcel and
/// milestone, only for a recipient with an address and an owner whose notices are on; a parcel whose first answer
/// shows it delivered takes its milestone as skipped; each parcel's notices are claimed oldest first, one at a
/// time; a lease keeps a claimed notice from a second sender until it ends; the stop list and the count per day.
@Suite("Customer notices in the store", .timeLimit(.minutes(5)))
struct CustomerNoticeStoreTests {
    static let start = Date(timeIntervalSince1970: 1_796_000_000)
    static let later = start + 86_400

    static func shipment(_ number: TrackingNumber, _ rows: [(String, StatusCode)], terminal: Bool = false) -> Shipment {
        let events = rows.enumerated().map { index, row in
            TrackingEvent(
                label: row.0, labelEnglish: nil, code: row.1, at: JapanDateTime(start.addingTimeInterval(Double(index) * 600)),
                dateText: nil, place: "東京")
        }
        let (label, code) = rows[rows.count - 1]
        return Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: terminal),
            product: nil, scheduledDelivery: nil, events: events, deliveredAt: nil)
    }

    static func record(_ email: String?) -> ParcelRecordChange {
        var change = ParcelRecordChange()
        change.reference = .some("A-1")
        change.recipient = ["name": "山田 太郎", "email": email]
        return change
    }

    @Test(arguments: StoreEngine.available)
    func queuedOnceInOrder(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let owner = WatchOwner.local
        let moving = try TrackingNumber(parsing: "312345678901")
        let silent = try TrackingNumber(parsing: "312345678912")
        let done = try TrackingNumber(parsing: "312345678923")
        for (number, email) in [(moving, "taro@example.jp"), (silent, nil), (done, "jiro@example.jp")] {
            _ = try await store.add(
                number, carrier: .yamato, label: nil, record: Self.record(email), owner: owner, webhook: nil, now: Self.start)
        }
        let rows: [(String, StatusCode)] = [("荷物受付", .infoReceived), ("輸送中", .inTransit), ("配達中", .outForDelivery)]
        // Off: nothing is queued.
        _ = try await store.record(Self.shipment(moving, Array(rows[0..<1])), fetchedAt: Self.start) { _, _ in Self.later }
        #expect(try await store.customerNotices(watchID: try #require(await store.watch(moving, owner: owner)).id, owner: owner).isEmpty)
        try await store.saveNoticeSettings(
            Data(#"{"enabled": true, "milestones": ["shipped", "out_for_delivery", "delivered"]}"#.utf8), owner: owner,
            at: Self.start)
        var at = Self.start
        for count in 1...rows.count {
            at += 600
            for number in [moving, silent] {
                _ = try await store.record(Self.shipment(number, Array(rows[0..<count])), fetchedAt: at) { _, _ in Self.later }
            }
        }
        _ = try await store.record(
            Self.shipment(done, rows + [("配達完了", .delivered)], terminal: true), fetchedAt: at) { _, _ in Self.later }
        let movingID = try #require(await store.watch(moving, owner: owner)).id
        let doneID = try #require(await store.watch(done, owner: owner)).id
        let queued = try await store.customerNotices(watchID: movingID, owner: owner)
        #expect(queued.map(\.milestone) == [.shipped, .outForDelivery])
        #expect(queued.allSatisfy { $0.state == "pending" && $0.address == "taro@example.jp" && $0.reference == "A-1" })
        #expect(try await store.customerNotices(watchID: doneID, owner: owner).map(\.state) == ["skipped"])
        // Delivered again on a later answer: still nobody told.
        _ = try await store.record(
            Self.shipment(done, rows + [("配達完了", .delivered)], terminal: true), fetchedAt: at + 60) { _, _ in Self.later }
        #expect(try await store.customerNotices(watchID: doneID, owner: owner).count == 1)
        // Another owner reads none of them.
        #expect(try await store.customerNotices(watchID: movingID, owner: WatchOwner(id: "other")).isEmpty)

        // One at a time per parcel, oldest first; the lease keeps it from another sender.
        let now = at + 60
        let first = try await store.claimCustomerNotices(at: now, limit: 10, leaseUntil: now + 60, excludingWatches: [])
        #expect(first.map(\.milestone) == [.shipped])
        #expect(try await store.claimCustomerNotices(at: now, limit: 10, leaseUntil: now + 60, excludingWatches: []).isEmpty)
        try await store.recordCustomerNotice(
            first[0].id, state: "sent", at: now, status: 250, error: nil, retryAt: nil, attempted: true)
        let second = try await store.claimCustomerNotices(at: now, limit: 10, leaseUntil: now + 60, excludingWatches: [])
        #expect(second.map(\.milestone) == [.outForDelivery])
        // A lease that ran out (a server killed after sending) gives the same notice again.
        let again = try await store.claimCustomerNotices(
            at: now + 61, limit: 10, leaseUntil: now + 120, excludingWatches: [])
        #expect(again.map(\.id) == second.map(\.id))
        try await store.recordCustomerNotice(
            second[0].id, state: "pending", at: now + 61, status: 451, error: "try later", retryAt: now + 600,
            attempted: true)
        #expect(try await store.claimCustomerNotices(at: now + 62, limit: 10, leaseUntil: now + 120, excludingWatches: []).isEmpty)

        let hash = String(repeating: "ab", count: 32)
        #expect(try await store.customerNoticeStop(owner: owner.id, addressHash: hash) == nil)
        try await store.stopCustomerNotices(owner: owner.id, addressHash: hash, reason: "stopped", at: now)
        try await store.stopCustomerNotices(owner: owner.id, addressHash: hash, reason: "refused 550", at: now)
        #expect(try await store.customerNoticeStop(owner: owner.id, addressHash: hash) == "stopped")
        #expect(try await store.customerNoticeStop(owner: "other", addressHash: hash) == nil)

        let days = try await store.customerNoticeDays(owner: owner, since: Self.start - 86_400)
        #expect(Dictionary(uniqueKeysWithValues: days.map { ($0.state, $0.count) }) == ["sent": 1, "pending": 1, "skipped": 1])
        #expect(Set(days.map(\.day)) == [JapanDateTime(now).iso8601.prefix(10).description])

        // Ended notices are forgotten past their age; a pending one never.
        #expect(try await store.forgetCustomerNotices(endedBefore: Self.start) == 0)
        // The log outlives the parcel.
        _ = try await store.remove(moving, owner: owner)
        #expect(try await store.customerNoticeDays(owner: owner, since: Self.start - 86_400).map(\.count).reduce(0, +) == 3)
        #expect(try await store.claimCustomerNotices(at: now + 10_000, limit: 10, leaseUntil: now + 20_000, excludingWatches: []).isEmpty)
        #expect(try await store.forgetCustomerNotices(endedBefore: now + 1) == 2)
        #expect(try await store.customerNoticeDays(owner: owner, since: Self.start - 86_400).map(\.count) == [1])
    }
}
