import Foundation
import KuronekoServer
import KuronekoTestSupport
import Testing

@Suite("Doorbell", .timeLimit(.minutes(10)))
struct DoorbellTests {
    @Test("a ring ends a nap at once; a ring while nobody naps is kept for the next nap")
    func rings() async {
        let clock = ManualClock()
        let bell = Doorbell()
        // An hour's tick on a clock that never moves: only the bell can end these naps.
        let napping = Task { await bell.nap(for: .seconds(3_600), clock: clock) }
        await clock.waitForSleepers(1)
        bell.ring()
        await napping.value
        bell.ring()
        await bell.nap(for: .seconds(3_600), clock: clock)
    }

    @Test("without a ring a nap lasts its tick")
    func tick() async {
        let clock = ManualClock()
        let bell = Doorbell()
        let napping = Task { await bell.nap(for: .seconds(5), clock: clock) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await napping.value
    }
}
