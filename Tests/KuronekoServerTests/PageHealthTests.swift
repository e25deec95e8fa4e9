import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// When a carrier's pages are judged changed, and read again: the pure policy, event by event.
@Suite("Page health")
struct PageHealthTests {
    private static let start = Date(timeIntervalSince1970: 1_790_000_000)
    private static let numbers = ValidNumbers.numbers(12, from: 63_000_000_000)

    private static func refused(_ index: Int, at seconds: Double, canary: Bool = false) -> PageHealth.Event {
        .refused(.yamato, numbers: [numbers[index]], reason: "unrecognized_layout", canary: canary,
            at: start.addingTimeInterval(seconds))
    }

    private static func read(at seconds: Double, canary: Bool = false, _ carrier: Carrier = .yamato) -> PageHealth.Event {
        .read(carrier, canary: canary, at: start.addingTimeInterval(seconds))
    }

    @Test("five distinct numbers within ten minutes: changed, said once; three reads in a row: read again, said once")
    func distinctNumbers() {
        var health = PageHealth(policy: .init(hourMinimumPages: 1_000))
        // The same number again and again is one number.
        for second in 0..<6 { #expect(health.handle(Self.refused(0, at: Double(second))).isEmpty) }
        for index in 1..<4 { #expect(health.handle(Self.refused(index, at: 10)).isEmpty) }
        let changed = health.handle(Self.refused(4, at: 20))
        #expect(changed.count == 1)
        guard case .changed(.yamato, let reason) = changed.first else {
            Issue.record("expected yamato changed, got \(changed)")
            return
        }
        #expect(reason.hasPrefix("pages for 5 numbers were not understood within 10 minutes"))
        #expect(health.degraded[.yamato]?.since == Self.start.addingTimeInterval(20))
        #expect(health.handle(Self.refused(5, at: 30)).isEmpty, "said once")
        #expect(health.handle(Self.read(at: 40)).isEmpty)
        #expect(health.handle(Self.read(at: 41)).isEmpty)
        #expect(health.handle(Self.refused(6, at: 42)).isEmpty, "a refusal breaks the run of reads")
        #expect(health.handle(Self.read(at: 43)).isEmpty)
        #expect(health.handle(Self.read(at: 44)).isEmpty)
        #expect(health.handle(Self.read(at: 45)) == [.restored(.yamato)])
        #expect(health.degraded.isEmpty)
        #expect(health.handle(Self.read(at: 46)).isEmpty, "said once")
    }

    @Test("refusals further apart than the window do not add up")
    func window() {
        var health = PageHealth(policy: .init(hourMinimumPages: 1_000))
        for index in 0..<8 { #expect(health.handle(Self.refused(index, at: Double(index) * 200)).isEmpty) }
        #expect(health.degraded.isEmpty)
    }

    @Test("half of the last hour's pages refused, with at least four pages: changed")
    func hourShare() {
        var health = PageHealth()
        #expect(health.handle(Self.read(at: 0)).isEmpty)
        #expect(health.handle(Self.refused(0, at: 100)).isEmpty)
        #expect(health.handle(Self.read(at: 200)).isEmpty)
        let changed = health.handle(Self.refused(1, at: 300))
        guard case .changed(.yamato, let reason) = changed.first else {
            Issue.record("expected yamato changed, got \(changed)")
            return
        }
        #expect(reason.hasPrefix("50 % of the last hour's 4 pages were not understood"))
    }

    @Test("the canary's page: changed at once when refused, read again at once when read; other carriers untouched")
    func canary() {
        var health = PageHealth()
        #expect(health.handle(Self.read(at: 0, .sagawa)).isEmpty)
        let changed = health.handle(Self.refused(0, at: 1, canary: true))
        #expect(changed.count == 1)
        #expect(health.degraded.keys.sorted { $0.rawValue < $1.rawValue } == [.yamato])
        #expect(health.handle(Self.read(at: 2, canary: true)) == [.restored(.yamato)])
    }
}
