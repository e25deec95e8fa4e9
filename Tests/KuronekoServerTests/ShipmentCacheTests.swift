import Foundation
import Kuroneko
import KuronekoServer
import KuronekoTestSupport
import Testing

@Suite("Shipment cache")
struct ShipmentCacheTests {
    private let fetchedAt = Date(timeIntervalSince1970: 1_793_000_000)

    private func shipment(_ number: TrackingNumber, _ code: StatusCode, terminal: Bool) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: code, label: "x", labelEnglish: nil, summary: nil, note: nil, isTerminal: terminal),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    @Test("the least recently used shipment goes first when the cache is full")
    func leastRecentlyUsed() {
        let cache = ShipmentCache(policy: .init(capacity: 2))
        let numbers = ValidNumbers.numbers(3)
        cache.store(shipment(numbers[0], .inTransit, terminal: false), fetchedAt: fetchedAt)
        cache.store(shipment(numbers[1], .inTransit, terminal: false), fetchedAt: fetchedAt)
        #expect(cache.entry(for: numbers[0]) != nil)
        cache.store(shipment(numbers[2], .inTransit, terminal: false), fetchedAt: fetchedAt)
        #expect(cache.count == 2)
        #expect(cache.entry(for: numbers[1]) == nil)
        #expect(cache.entry(for: numbers[0]) != nil)
        #expect(cache.entry(for: numbers[2]) != nil)
    }

    @Test("a large cache (in shards) stays within its capacity, keeps what is used, and answers from two threads")
    func shardedCapacity() async {
        let cache = ShipmentCache(policy: .init(capacity: 2_048))
        let numbers = ValidNumbers.numbers(6_000, from: 12_345_678_901)
        let kept = Array(numbers.prefix(100))
        for (index, number) in numbers.enumerated() {
            cache.store(shipment(number, .inTransit, terminal: false), fetchedAt: fetchedAt)
            if index % 50 == 0 { for number in kept { _ = cache.entry(for: number) } }
        }
        #expect(cache.count <= 2_048)
        #expect(cache.count > 1_500, "the shards are used evenly enough: \(cache.count)")
        #expect(kept.allSatisfy { cache.entry(for: $0) != nil }, "entries used all along are still there")
        let found = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask { numbers.suffix(500).reduce(0) { $0 + (cache.entry(for: $1) == nil ? 0 : 1) } }
            }
            return await group.reduce(0, +)
        }
        #expect(found == 1_000)
    }

    @Test(
        "time to live follows the status: a day when done or invalid, five minutes while moving",
        arguments: [
            (StatusCode.delivered, true, 86_400.0), (.inTransit, false, 300), (.invalidNumber, true, 86_400),
            (.notFound, false, 300),
        ])
    func timeToLive(code: StatusCode, terminal: Bool, seconds: Double) {
        let cache = ShipmentCache()
        let entry = cache.store(shipment(ValidNumbers.number(12_345), code, terminal: terminal), fetchedAt: fetchedAt)
        #expect(entry.expiresAt.timeIntervalSince(fetchedAt) == seconds)
        #expect(entry.isFresh(at: fetchedAt.addingTimeInterval(seconds - 1)))
        #expect(!entry.isFresh(at: fetchedAt.addingTimeInterval(seconds)))
    }

    @Test("an entry carries its JSON as served, with fetched_at")
    func servedJSON() async throws {
        let entry = ShipmentCache().store(
            shipment(ValidNumbers.number(12_345), .delivered, terminal: true), fetchedAt: fetchedAt)
        let json = try JSON(data: entry.json)
        #expect(json["fetched_at"] == .string(JapanDateTime(fetchedAt).iso8601))
        #expect(json["tracking_number"] == .string(ValidNumbers.number(12_345).digits))
    }
}
