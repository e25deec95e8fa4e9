import Foundation
import Kuroneko
import KuronekoSimulator
import KuronekoTestSupport
import Testing

@Suite("Simulator")
struct SimulatedPageTests {
    private let epoch = Date(timeIntervalSince1970: 1_793_000_000)

    @Test("thousands of simulated pages parse back to exactly the states the simulator meant")
    func parsesBack() throws {
        var seed: UInt64 = 12_345_678_901
        var pages = 0
        var parcels = 0
        var seenCodes = Set<StatusCode>()
        for _ in 0..<1_200 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(seed >> 60 % 10) + 1
            var entries: [SimulatedPage.Entry] = []
            for _ in 0..<count {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if seed % 13 == 0 {
                    entries.append(.invalid(String(format: "%011llu", seed % 100_000_000_000) + "9"))
                } else {
                    entries.append(.parcel(SimulatedParcel(number: ValidNumbers.number(seed >> 8), epoch: epoch)))
                }
            }
            // Anywhere from before the first hand-in to after the last journey has ended.
            let now = epoch.addingTimeInterval(TimeInterval(Int(seed >> 20 % 130 * 3600)) - 40 * 3600)
            let html = SimulatedPage.html(for: entries, now: now)
            let shipments = try TrackingPageParser().parse(Data(html.utf8), now: now)
            try #require(shipments.count == entries.count)
            for (entry, shipment) in zip(entries, shipments) {
                check(shipment, against: entry, now: now)
                seenCodes.insert(shipment.status.code)
            }
            pages += 1
            parcels += entries.count
        }
        #expect(pages == 1_200)
        #expect(parcels > 5_000)
        #expect(
            seenCodes.isSuperset(of: [
                .infoReceived, .inTransit, .outForDelivery, .attemptFailed, .delivered, .exception, .returned,
                .notFound, .invalidNumber,
            ]))
    }

    private func check(_ shipment: Shipment, against entry: SimulatedPage.Entry, now: Date) {
        switch entry {
        case .invalid:
            #expect(shipment.status.code == .invalidNumber)
            #expect(shipment.events.isEmpty)
        case .parcel(let parcel):
            #expect(shipment.trackingNumber == parcel.number)
            switch parcel.state(at: now) {
            case .unregistered:
                #expect(shipment.status.code == .notFound)
                #expect(shipment.events.isEmpty)
            case .tracked(let tracked):
                #expect(shipment.status.label == tracked.statusLabel)
                #expect(shipment.status.code == tracked.statusCode, "\(parcel.scenario) at \(now)")
                #expect(shipment.status.isTerminal == tracked.isTerminal)
                #expect(shipment.product == tracked.product)
                #expect(
                    shipment.scheduledDelivery?.date
                        == tracked.scheduledDate.flatMap {
                            JapanDateTime(year: $0.year, month: $0.month, day: $0.day)
                        })
                #expect(shipment.events.map(\.label) == tracked.events.map(\.label))
                #expect(shipment.events.map(\.code) == tracked.events.map(\.code))
                #expect(shipment.events.map(\.at) == tracked.events.map(\.at))
                #expect(shipment.events.map(\.place) == tracked.events.map(\.place))
            }
        }
    }

    @Test("a parcel's progress is a function of its number and the clock")
    func deterministic() throws {
        let number = ValidNumbers.number(40_000_000_000)
        let parcel = SimulatedParcel(number: number, epoch: epoch)
        #expect(parcel == SimulatedParcel(number: number, epoch: epoch))
        #expect(parcel.state(at: parcel.registeredAt.addingTimeInterval(-1)) == .unregistered)
        guard case .tracked(let first) = parcel.state(at: parcel.registeredAt) else {
            Issue.record("registered parcel has no state")
            return
        }
        #expect(first.statusLabel == "荷物受付")
        guard case .tracked(let last) = parcel.state(at: parcel.registeredAt.addingTimeInterval(100 * 3600)) else {
            Issue.record("registered parcel has no state")
            return
        }
        #expect(last.isTerminal)
    }
}
