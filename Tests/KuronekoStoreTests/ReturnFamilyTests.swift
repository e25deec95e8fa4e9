import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// A parcel sent back to its sender, on both engines: 調査中 → 返品 → 輸送中 → 配達完了 is a problem, then
/// returning (the transit row after 返品 belongs to the way back), then returned (delivered back), never in
/// transit or delivered; the list's filter and summary count it so.
@Suite("A parcel going back", .timeLimit(.minutes(5)))
struct ReturnFamilyTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Sagawa's page after the rows so far: the latest row is the status, as Sagawa's parser reads it.
    private static func shipment(_ number: TrackingNumber, rows: [(String, StatusCode)]) -> Shipment {
        let events = rows.enumerated().map { index, row in
            TrackingEvent(
                label: row.0, labelEnglish: nil, code: row.1,
                at: JapanDateTime(start.addingTimeInterval(Double(index) * 3_600)), dateText: nil, place: "東京")
        }
        let (label, code) = rows[rows.count - 1]
        return Shipment(
            trackingNumber: number, carrier: .sagawa,
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: code == .delivered),
            product: nil, scheduledDelivery: nil, events: events, deliveredAt: nil)
    }

    @Test(arguments: StoreEngine.available)
    func returningThenReturned(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "812345678900")
        _ = try await store.add(number, carrier: .sagawa, label: "返品テスト", owner: .local, webhook: nil, now: Self.start)
        var rows: [(String, StatusCode)] = [("調査中", .exception)]
        var families: [WatchFamily?] = []
        for next in [("返品", StatusCode.returned), ("輸送中", .inTransit), ("配達完了", .delivered)] as [(String, StatusCode)] {
            rows.append(next)
            let at = Self.start.addingTimeInterval(Double(rows.count) * 3_600)
            _ = try await store.record(Self.shipment(number, rows: rows), fetchedAt: at) { _, _ in at }
            families.append(try await store.watch(number, owner: .local)?.family)
            if next.0 == "輸送中" {
                var query = WatchQuery()
                query.families = [.returning]
                let listed = try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: at)
                #expect(listed.map(\.number) == [number])
                query.families = [.transit]
                #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: at).isEmpty)
                let summary = try await store.watchSummary(owner: .local, matching: WatchQuery(), now: at)
                #expect(summary.byFamily["returning"] == 1 && summary.byFamily["transit"] == 0)
            }
        }
        #expect(families == [.returning, .returning, .returned])
    }

    @Test("the return leg: none before a return row; returning after it whatever comes next; returned once delivered back")
    func returnLeg() throws {
        let number = try TrackingNumber(parsing: "812345678900")
        #expect(Self.shipment(number, rows: [("輸送中", .inTransit), ("配達完了", .delivered)]).returnLeg == nil)
        #expect(Self.shipment(number, rows: [("返品", .returned)]).returnLeg == .returning)
        #expect(Self.shipment(number, rows: [("返品", .returned), ("輸送中", .inTransit)]).returnLeg == .returning)
        let back = Self.shipment(number, rows: [("返品", .returned), ("輸送中", .inTransit), ("配達完了", .delivered)])
        #expect(back.returnLeg == .returned)
        // Delivered back to the sender is news for the person waiting, never "delivered".
        #expect(AnnouncementKind.of(back) == .exception)
        #expect(AnnouncementKind.of(Self.shipment(number, rows: [("配達完了", .delivered)])) == .delivered)
    }
}
