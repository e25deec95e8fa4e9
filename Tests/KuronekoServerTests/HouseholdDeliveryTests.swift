import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Synchronization
import Testing
@testable import KuronekoServer
@testable import KuronekoStore

/// A household of three, each told on their own phone only of what they chose, through the deliverer: mama hears
/// deliveries, papa every change, the child only problems; another list's phone hears none of this list; a member
/// taken out of the list hears nothing more.
@Suite("A household's own channels, delivered", .timeLimit(.minutes(5)))
struct HouseholdDeliveryTests {
    @Test func eachToldWhatTheyChose() async throws {
        let (harness, accounts) = try await SignInAPITests.withAccounts([("mama", .admin), ("papa", .staff), ("kid", .viewer)])
        for (name, kinds) in [("mama", #"["delivered"]"#), ("papa", #"["changed"]"#), ("kid", #"["exception"]"#)] {
            let session = try await SignInAPITests.signIn(harness, name, "\(name)-password")
            let body = #"{"kind": "ntfy", "url": "http://127.0.0.1:9/\#(name)", "device": "\#(name)のスマホ", "kinds": \#(kinds)}"#
            let added = await SignInAPITests.send(harness, "POST", "/v1/channels", body, cookie: session.token, csrf: session.csrf)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        }
        // Another list, with a phone that hears everything.
        let elsewhere = try await accounts.createList(name: "隣", admin: nil, at: harness.clock.now)
        _ = try await harness.store.addChannel(
            NewChannel(kind: "ntfy", destination: Data(#"{"url":"http://127.0.0.1:9/neighbour"}"#.utf8), numbers: nil,
                kinds: [.changed, .delivered, .exception], language: "ja", quietHours: nil),
            owner: WatchOwner(id: elsewhere.id), now: harness.clock.now)

        _ = try await ChannelTests.changed(harness.store, owner: .local, now: harness.clock.now)
        let fake = ChannelTests.FakeService([])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: nil, publicURL: nil, log: .silent)
        var sent = 0
        for _ in 0..<10 {
            let round = await deliverer.deliverOnce()
            if round == 0 { break }
            sent += round
        }
        func told() -> [String: Int] {
            fake.requests.withLock { requests in
                Dictionary(grouping: requests, by: { $0.url.lastPathComponent }).mapValues(\.count)
            }
        }
        #expect(told() == ["mama": 1, "papa": 1], "\(told())")
        let mamas = fake.requests.withLock { $0.first { $0.url.lastPathComponent == "mama" } }
        let mamasText = String(decoding: mamas?.body ?? Data(), as: UTF8.self)
        #expect(mamasText.contains("Delivered") || mamasText.contains("配達完了"), "\(mamasText)")

        // Papa leaves the list: his phone is told nothing more of it.
        let papa = try #require(try await accounts.user(named: "papa"))
        #expect(try await accounts.removeMember(list: "local", user: papa.id))
        #expect(try await harness.store.channels(owner: .local).compactMap(\.device).sorted() == ["kidのスマホ", "mamaのスマホ"])
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let watch = try #require(try await harness.store.watch(number, owner: .local))
        _ = try await harness.store.announce(.changed, watch: watch, shipment: try #require(watch.latest?.json), at: harness.clock.now)
        while await deliverer.deliverOnce() > 0 {}
        #expect(told() == ["mama": 1, "papa": 1], "\(told())")
    }
}
