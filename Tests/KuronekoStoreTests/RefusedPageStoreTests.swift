import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoTestSupport
import Testing

/// What the store keeps when a carrier's page is not understood, on both engines: the watches' state, the
/// pages (bounded), and the carrier's state, whose changes reach the operator's channels once.
@Suite("Refused pages in the store", .timeLimit(.minutes(10)))
struct RefusedPageStoreTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)

    private static func page(_ carrier: Carrier, at: Date, bytes: Int = 100) -> NewRefusedPage {
        NewRefusedPage(
            carrier: carrier, reason: "unrecognized_layout", message: "unrecognised page layout", url: "http://x/t",
            receivedAt: at, charset: "UTF-8", numbers: 1, redacted: true, body: Data(repeating: 0x61, count: bytes))
    }

    @Test("a refused page marks the watches of its numbers until an answer is recorded", arguments: StoreEngine.available)
    func watchState(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(2, from: 62_000_000_000)
        for number in numbers { _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: Self.now) }
        let answer = Shipment(
            trackingNumber: numbers[0],
            status: ShipmentStatus(
                code: .inTransit, label: "輸送中", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        try await store.record(answer, fetchedAt: Self.now) { _, _ in Self.now }
        let refusedAt = Self.now.addingTimeInterval(60)
        #expect(try await store.markPageRefused([numbers[0]], at: refusedAt) == 1)
        #expect(try await store.markPageRefused([numbers[0]], at: refusedAt.addingTimeInterval(60)) == 0, "kept from the first")
        let marked = try #require(try await store.watch(numbers[0], owner: .local))
        #expect(marked.pageRefusedAt == refusedAt)
        #expect(marked.latest?.shipment?.status.code == .inTransit, "the last answer is kept")
        #expect(try await store.watch(numbers[1], owner: .local)?.pageRefusedAt == nil)
        let later = refusedAt.addingTimeInterval(600)
        try await store.record(answer, fetchedAt: later) { _, _ in later }
        #expect(try await store.watch(numbers[0], owner: .local)?.pageRefusedAt == nil, "read again: cleared")
    }

    @Test("kept pages: 3 per carrier an hour, the oldest dropped past the count or the size", arguments: StoreEngine.available)
    func bounded(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let limits = RefusedPageLimits(perCarrierPerHour: 3, count: 5, bytes: 1_000)
        var kept: [Int64] = []
        for minute in 0..<4 {
            if let id = try await store.keepRefusedPage(
                Self.page(.yamato, at: Self.now.addingTimeInterval(Double(minute) * 60)), limits: limits)
            {
                kept.append(id)
            }
        }
        #expect(kept.count == 3, "the fourth within the hour is not kept")
        // An hour on, the carrier has its share again; Sagawa's pages count on their own.
        let hourOn = Self.now.addingTimeInterval(3_700)
        #expect(try await store.keepRefusedPage(Self.page(.yamato, at: hourOn), limits: limits) != nil)
        #expect(try await store.keepRefusedPage(Self.page(.sagawa, at: hourOn), limits: limits) != nil)
        #expect(try await store.keepRefusedPage(Self.page(.japanPost, at: hourOn), limits: limits) != nil)
        let listed = try await store.refusedPages(limit: 100)
        #expect(listed.count == 5, "the oldest dropped past 5")
        #expect(!listed.map(\.id).contains(kept[0]))
        #expect(listed.map(\.id) == listed.map(\.id).sorted(by: >), "newest first")
        #expect(listed.allSatisfy { $0.page.body.isEmpty && $0.size == 100 }, "lists carry no bodies")
        // A large page pushes out the oldest until the total fits.
        let big = try #require(
            try await store.keepRefusedPage(Self.page(.sagawa, at: hourOn.addingTimeInterval(60), bytes: 700), limits: limits))
        let after = try await store.refusedPages(limit: 100)
        #expect(after.reduce(0) { $0 + $1.size } <= 1_000)
        #expect(after.first?.id == big)
        let one = try #require(try await store.refusedPage(big))
        #expect(one.page.body.count == 700 && one.page.carrier == .sagawa && one.page.reason == "unrecognized_layout")
        #expect(try await store.refusedPage(999_999) == nil)
    }

    @Test(
        "a carrier's state changes once for every server on the database, and each change is queued for the channels that name page_changed",
        arguments: StoreEngine.available)
    func stateOnce(engine: StoreEngine) async throws {
        let made = try await engine.makeStore()
        let store = made.store
        let other = try made.another()
        let settings = Data(#"{"url":"https://ntfy.example/ops"}"#.utf8)
        let operatorChannel = try await store.addChannel(
            NewChannel(kind: "ntfy", destination: settings, numbers: ["111111111111"], kinds: [.pageChanged],
                language: "en", quietHours: nil), owner: .key(1), now: Self.now)
        let household = try await store.addChannel(
            NewChannel(kind: "ntfy", destination: settings, numbers: nil, kinds: AnnouncementKind.parcelKinds,
                language: "ja", quietHours: nil), owner: .key(2), now: Self.now)
        let notice = CarrierPageNotice(carrier: .yamato, restored: false, reason: "5 numbers", at: Self.now).json()
        // Two servers judge at once: one says it.
        async let first = store.setCarrierPageState(.yamato, changed: true, reason: "5 numbers", at: Self.now, notice: notice)
        async let second = other.setCarrierPageState(.yamato, changed: true, reason: "5 numbers", at: Self.now, notice: notice)
        let results = try await [first, second]
        #expect(results.filter { $0 }.count == 1)
        #expect(try await store.setCarrierPageState(.yamato, changed: true, reason: nil, at: Self.now, notice: notice) == false)
        #expect(try await store.setCarrierPageState(.sagawa, changed: false, reason: nil, at: Self.now, notice: notice) == false)
        let restored = CarrierPageNotice(carrier: .yamato, restored: true, reason: nil, at: Self.now).json()
        #expect(try await other.setCarrierPageState(.yamato, changed: false, reason: nil, at: Self.now, notice: restored))
        let backlog = try await store.channelBacklog(operatorChannel.id, limit: 10)
        #expect(backlog.map(\.kind) == [.pageChanged, .pageRestored], "heard whatever numbers the channel follows")
        #expect(CarrierPageNotice.decode(backlog[0].shipment)?.reason == "5 numbers")
        #expect(try await store.channelBacklog(household.id, limit: 10).isEmpty, "parcel channels do not hear it")
    }
}
