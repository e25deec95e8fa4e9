import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Synchronization
import Testing

@testable import KuronekoSimulator

/// The simulator's changed layout, at each carrier: every lookup is refused as page_not_understood naming the
/// carrier, and the page as it would be kept holds neither the sender's name nor their telephone.
@Suite("The simulator's changed layout")
struct ChangedLayoutTests {
    private static let start = Date(timeIntervalSince1970: 1_793_000_000)

    /// Keeps every refused page the clients report.
    final class Refusals: Sendable {
        let pages = Mutex<[RefusedPage]>([])
    }

    @Test("each carrier's changed page is page_not_understood, and masks to a page without the sender", arguments: [
        ("3277-5445-9830", Carrier.yamato), ("812345678900", .sagawa), ("912345678904", .japanPost),
    ])
    func changed(text: String, carrier: Carrier) async throws {
        let simulator = SimulatorResponder(
            clock: SimulatorClock(start: Self.start, speed: 0), faults: SimulatorFaults(changedLayout: true))
        let refusals = Refusals()
        let endpoint = carrier == .yamato ? "http://simulator.test/cgi-bin/tneko" : "http://simulator.test"
        var configuration = TrackingClient.Configuration.defaults(for: carrier)
        configuration.endpoint = URL(string: endpoint)!
        configuration.minimumRequestInterval = .zero
        let client = TrackingClient(
            configuration: configuration, transport: SimulatorTransport(simulator: simulator),
            observer: { report in if let page = report.refusedPage { refusals.pages.withLock { $0.append(page) } } })
        let number = try TrackingNumber(parsing: text)
        let error = await #expect(throws: TrackingError.self) { try await client.track(number) }
        #expect(error?.code == .pageNotUnderstood, "\(String(describing: error))")
        #expect(error?.carrier == carrier)
        #expect(error?.message.hasPrefix("\(carrier.englishName)'s page could not be read") == true)
        let page = try #require(refusals.pages.withLock { $0.first })
        let raw = String(decoding: page.body, as: UTF8.self)
        #expect(raw.contains(ChangedLayout.senderTelephone), "the changed page shows the sender")
        let masked = try #require(PageRedaction.redact(page.body, charset: page.declaredCharset, numbers: [number]))
        let kept = String(decoding: masked, as: UTF8.self)
        for unwanted in [ChangedLayout.senderTelephone, number.digits, "黒猫", "花子", "&#40658;", "&#33457;"] {
            #expect(!kept.contains(unwanted), "\(unwanted) is in the kept page")
        }
        // Character references of masked letters become one placeholder each; everything else keeps its size.
        #expect(masked.count >= page.body.count * 9 / 10, "the rest of the page is kept")
    }
}
