import Dispatch
import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// Mail is read on lanes of its own, a bounded number at a time: past the lanes and the wait, refused at once.
@Suite("mail-reading lanes", .timeLimit(.minutes(10)))
struct MailReadingLanesTests {
    @Test("one lane, one waiting: a third read is refused at once; the waiting one runs when the lane is free")
    func bounded() async throws {
        let lanes = MailReadingLanes(lanes: 1, waiting: 1)
        // The first read holds its lane (a thread of the lanes' own queue, not the cooperative pool) until released.
        let release = DispatchSemaphore(value: 0)
        let first = Task { try await lanes.run { release.wait(); return 1 } }
        #expect(try await eventually(within: .seconds(120)) { lanes.load.reading == 1 })
        let second = Task { try await lanes.run { 2 } }
        #expect(try await eventually(within: .seconds(120)) { lanes.load.waiting == 1 })
        await #expect(throws: MailReadingBusy.self) { try await lanes.run { 3 } }
        release.signal()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(lanes.load.reading == 0 && lanes.load.waiting == 0)
    }

    @Test("a mail read on a lane is the mail read in place")
    func sameReading() async throws {
        let raw = Data("Subject: x\r\n\r\nヤマト運輸 お問い合わせ伝票番号：470801203456\r\n".utf8)
        let lanes = MailReadingLanes()
        #expect(try await lanes.read(raw).parcels.map(\.number) == ShippingMailReader.read(raw).parcels.map(\.number))
    }
}
