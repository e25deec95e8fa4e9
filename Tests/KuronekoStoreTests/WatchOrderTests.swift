import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

@testable import KuronekoStore

/// A list in a person's order, on both engines: each sort key either way, missing values last, ties in a fixed
/// order, any offset with the list's size, narrowed as any list is, and the ids for a download in that order.
@Suite("Watch list orders", .timeLimit(.minutes(10)))
struct WatchOrderTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// Six parcels: (status, day of the forecast or nil, hour of the latest event or nil).
    static let parcels: [(StatusCode?, Int?, Int?)] = [
        (.inTransit, 5, 9), (.delivered, nil, 12), (.attemptFailed, 4, 10), (nil, nil, nil), (.outForDelivery, 4, 11),
        (.inTransit, nil, 8),
    ]

    func filled(_ engine: StoreEngine) async throws -> (any WatchStore, [String]) {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(Self.parcels.count)
        for (index, (code, day, hour)) in Self.parcels.enumerated() {
            _ = try await store.add(numbers[index], label: "parcel \(index)", owner: .local, webhook: nil, now: now)
            guard let code else { continue }
            var shipment = WatchStoreTests.shipment(numbers[index], code.rawValue, code, terminal: code == .delivered)
            if let day {
                shipment.scheduledDelivery = ScheduledDelivery(
                    raw: "12/\(day)", date: JapanDateTime(year: 2026, month: 12, day: day), windowStart: nil,
                    windowEnd: nil)
            }
            if let hour {
                shipment.events = [
                    TrackingEvent(
                        label: code.rawValue, labelEnglish: nil, code: code,
                        at: JapanDateTime(year: 2026, month: 12, day: 3, time: .init(hour: hour, minute: 0)),
                        dateText: nil, place: nil)
                ]
            }
            try await store.record(shipment, fetchedAt: now.addingTimeInterval(Double(index))) { _, _ in
                self.now.addingTimeInterval(3_600)
            }
        }
        return (store, numbers.map(\.digits))
    }

    func order(_ store: any WatchStore, _ text: String, query: WatchQuery = WatchQuery(), offset: Int = 0, limit: Int = 100)
        async throws -> (indexes: [Int], total: Int, ids: [Int64])
    {
        let order = try #require(WatchOrder(text))
        let page = try await store.watches(
            owner: .local, matching: query, ordered: order, offset: offset, limit: limit, now: now)
        let ids = try await store.watchIDs(owner: .local, matching: query, ordered: order, limit: 100, now: now)
        let indexes = page.watches.map { Int($0.label!.split(separator: " ")[1])! }
        return (indexes, page.total, ids)
    }

    @Test("each key either way; missing values last both ways; ties by the latest event, then the newest",
        arguments: StoreEngine.available)
    func orders(engine: StoreEngine) async throws {
        let (store, _) = try await filled(engine)
        // problem (2), out (4), transit (0 at 9:00, 5 at 8:00), pending (3), delivered (1).
        #expect(try await order(store, "status").indexes == [2, 4, 0, 5, 3, 1])
        #expect(try await order(store, "-status").indexes == [1, 3, 0, 5, 4, 2])
        // 12/4, 12/5, then none (1 at 12:00; 2 at 10:00, missed, so expected no more on its day; 5 at 8:00; 3
        // without events).
        #expect(try await order(store, "expected").indexes == [4, 0, 1, 2, 5, 3])
        #expect(try await order(store, "-expected").indexes == [0, 4, 1, 2, 5, 3])
        #expect(try await order(store, "event").indexes == [5, 0, 2, 4, 1, 3])
        #expect(try await order(store, "-event").indexes == [1, 4, 2, 0, 5, 3])
        #expect(try await order(store, "checked").indexes == [0, 1, 2, 4, 5, 3])
        #expect(try await order(store, "-checked").indexes == [5, 4, 2, 1, 0, 3])
        #expect(try await order(store, "added").indexes == [0, 1, 2, 3, 4, 5])
        #expect(try await order(store, "-added").indexes == [5, 4, 3, 2, 1, 0])
        let byNumber = try await order(store, "number")
        let numbers = try await store.watches(owner: .local, ids: byNumber.ids).map(\.number.digits)
        #expect(numbers == numbers.sorted())
        #expect(byNumber.total == 6)
    }

    @Test("any offset gives that slice and the size of the whole narrowed list; the ids say the same order",
        arguments: StoreEngine.available)
    func offsets(engine: StoreEngine) async throws {
        let (store, _) = try await filled(engine)
        let whole = try await order(store, "status")
        for offset in 0...6 {
            let page = try await order(store, "status", offset: offset, limit: 2)
            #expect(page.indexes == Array(whole.indexes.dropFirst(offset).prefix(2)))
            #expect(page.total == 6)
        }
        #expect(try await order(store, "status", offset: 60).indexes == [])
        let byID = try await store.watches(owner: .local, ids: whole.ids).map { Int($0.label!.split(separator: " ")[1])! }
        #expect(byID == whole.indexes)
        // Narrowed: only active parcels with a forecast, in order of the day; the size is of the narrowed list.
        var query = WatchQuery()
        query.state = .active
        query.dated = true
        let narrowed = try await order(store, "expected", query: query)
        #expect(narrowed.indexes == [4, 0, 2], "the missed one (2) has a date, and none expected")
        #expect(narrowed.total == 3)
        // Another owner's ids are not read, whatever is asked.
        let other = try await store.watches(owner: WatchOwner(id: "someone-else"), ids: whole.ids)
        #expect(other.isEmpty)
    }
}
