import Foundation
import KuronekoTestSupport
import Testing

@testable import KuronekoStore

/// The Message-IDs of a mailbox's mails turned into watches: remembered per mailbox, and bounded.
@Suite("mailbox messages in the store", .timeLimit(.minutes(10)))
struct MailboxMessagesStoreTests {
    @Test("a Message-ID is known once remembered, per mailbox; past the bound the oldest are forgotten", arguments: StoreEngine.available)
    func remembered(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(try await !store.mailboxMessageKnown("a", messageID: "m1@x"))
        try await store.rememberMailboxMessage("a", messageID: "m1@x", at: start)
        try await store.rememberMailboxMessage("a", messageID: "m1@x", at: start.addingTimeInterval(1))
        #expect(try await store.mailboxMessageKnown("a", messageID: "m1@x"))
        #expect(try await !store.mailboxMessageKnown("b", messageID: "m1@x"))
        for index in 2...5 {
            try await store.rememberMailboxMessage("a", messageID: "m\(index)@x", at: start.addingTimeInterval(Double(index * 10)))
        }
        try await store.forgetOldMailboxMessages("a", keeping: 3)
        #expect(try await !store.mailboxMessageKnown("a", messageID: "m1@x"))
        #expect(try await !store.mailboxMessageKnown("a", messageID: "m2@x"))
        for index in 3...5 { #expect(try await store.mailboxMessageKnown("a", messageID: "m\(index)@x")) }
    }
}
