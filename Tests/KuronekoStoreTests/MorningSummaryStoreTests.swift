import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// The morning summary in the store, on both engines: due at the channel's minute (not 3 hours past it), taken
/// once a day by whichever server asks first, queued in the channel's outbox only when there is something to say.
@Suite("Morning summaries in the store", .timeLimit(.minutes(5)))
struct MorningSummaryStoreTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(arguments: StoreEngine.available)
    func dueOnceADay(engine: StoreEngine) async throws {
        let made = try await engine.makeStore()
        let store = made.store
        var morning = NewChannel(
            kind: "ntfy", destination: Data(#"{"url":"https://ntfy.example/m"}"#.utf8), numbers: nil,
            kinds: [.morningSummary], language: "ja", quietHours: nil)
        morning.summaryMinute = 6 * 60 + 45
        let channel = try await store.addChannel(morning, owner: .local, now: Self.now)
        let plain = try await store.addChannel(
            NewChannel(kind: "ntfy", destination: Data(#"{"url":"https://ntfy.example/p"}"#.utf8), numbers: nil,
                kinds: [.changed], language: "ja", quietHours: nil), owner: .local, now: Self.now)
        #expect(try await store.morningSummaryMinutes(owner: .local) == [channel.id: 405])
        #expect(try await store.morningSummariesDue(day: "2026-12-04", minute: 404).isEmpty)
        #expect(try await store.morningSummariesDue(day: "2026-12-04", minute: 405).map(\.id) == [channel.id])
        #expect(try await store.morningSummariesDue(day: "2026-12-04", minute: 405 + 181).isEmpty, "too late")
        #expect(try await store.queueMorningSummary(channel: channel.id, day: "2026-12-04", summary: Data("{}".utf8), at: Self.now))
        #expect(try await !store.queueMorningSummary(channel: channel.id, day: "2026-12-04", summary: Data("{}".utf8), at: Self.now))
        #expect(try await store.morningSummariesDue(day: "2026-12-04", minute: 500).isEmpty)
        #expect(try await store.morningSummariesDue(day: "2026-12-05", minute: 500).map(\.id) == [channel.id])
        // A day with nothing to say is taken without a message.
        #expect(try await store.queueMorningSummary(channel: channel.id, day: "2026-12-05", summary: nil, at: Self.now))
        let pending = try await store.claimChannelDeliveries(
            at: Self.now.addingTimeInterval(60), limit: 10, leaseUntil: Self.now.addingTimeInterval(120), excludingChannels: [])
        #expect(pending.map(\.kind) == [.morningSummary] && pending.first?.channel.id == channel.id && plain.id != channel.id)
        // Removing the channel removes its time.
        #expect(try await store.removeChannel(channel.id, owner: .local))
        #expect(try await store.morningSummaryMinutes(owner: .local).isEmpty)
    }
}
