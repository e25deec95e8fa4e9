import Foundation
import Kuroneko
@testable import KuronekoSimulator
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
        var requestedWindows = 0
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
                if shipment.requestedDelivery != nil { requestedWindows += 1 }
            }
            pages += 1
            parcels += entries.count
        }
        #expect(pages == 1_200)
        #expect(parcels > 5_000)
        #expect(requestedWindows > 20, "too few pages show a requested window to test it")
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
                #expect(
                    shipment.scheduledDelivery?.windowStart == tracked.scheduledWindow?.components(separatedBy: "-")[0])
                #expect(
                    shipment.scheduledDelivery?.windowEnd == tracked.scheduledWindow?.components(separatedBy: "-")[1])
                #expect(
                    shipment.requestedDelivery?.date
                        == tracked.requestedDate.flatMap {
                            JapanDateTime(year: $0.year, month: $0.month, day: $0.day)
                        })
                #expect(
                    shipment.requestedDelivery.map { "\($0.windowStart ?? "")-\($0.windowEnd ?? "")" }
                        == tracked.requestedWindow)
                #expect(shipment.events.map(\.label) == tracked.events.map(\.label))
                #expect(shipment.events.map(\.code) == tracked.events.map(\.code))
                #expect(shipment.events.map(\.at) == tracked.events.map(\.at))
                #expect(shipment.events.map(\.place) == tracked.events.map(\.place))
            }
        }
    }

    /// The first parcel, counting up from a number, whose journey is `scenario`.
    private func parcel(taking scenario: Scenario) throws -> SimulatedParcel {
        let found = (0..<200).lazy.map {
            SimulatedParcel(number: ValidNumbers.number(50_000_000_000 + $0), epoch: self.epoch)
        }
        .first { $0.scenario == scenario }
        return try #require(found, "no number among 200 takes \(scenario)")
    }

    /// The page for `parcel` at `offset` after hand-in, parsed back, and checked against what the simulator meant.
    private func parsedBack(_ parcel: SimulatedParcel, hoursAfterHandIn hours: Double) throws -> Shipment {
        let now = parcel.registeredAt.addingTimeInterval(hours * 3600)
        let html = SimulatedPage.html(for: [.parcel(parcel)], now: now)
        let shipment = try #require(
            try TrackingPageParser().parse(Data(html.utf8), expecting: [parcel.number], now: now).first)
        check(shipment, against: .parcel(parcel), now: now)
        return shipment
    }

    @Test("every journey, at every step and just before it, parses back exactly", arguments: Scenario.allCases)
    func everyStep(scenario: Scenario) throws {
        let parcel = try parcel(taking: scenario)
        for step in scenario.steps {
            let hours = step.offset / 3600
            _ = try parsedBack(parcel, hoursAfterHandIn: hours - 1 / 60)
            let shipment = try parsedBack(parcel, hoursAfterHandIn: hours)
            #expect(shipment.events.last?.label == step.label)
        }
    }

    @Test("a weather delay on the way reads as in transit, 'Delayed', its reason kept in Japanese")
    func weatherDelay() throws {
        let parcel = try parcel(taking: .delayedThenDelivered)
        let delayed = try parsedBack(parcel, hoursAfterHandIn: 12)
        #expect(delayed.status.label == "遅延中（悪天候）")
        #expect(delayed.status.code == .inTransit)
        #expect(delayed.status.labelEnglish == "Delayed")
        #expect(delayed.events.map(\.label) == ["荷物受付", "発送済み", "輸送中", "遅延中（悪天候）"])
        #expect(delayed.events.last?.labelEnglish == "Delayed")
        let delivered = try parsedBack(parcel, hoursAfterHandIn: 47)
        #expect(delivered.status.code == .delivered)
        #expect(delivered.events.contains { $0.label == "遅延中（悪天候）" && $0.code == .inTransit })
    }

    @Test("a mail item shows 投函予定, in transit, for two days before 投函完了")
    func mailScheduled() throws {
        let parcel = try parcel(taking: .mailScheduledThenDelivered)
        let first = Scenario.mailScheduledHours
        for hours in stride(from: first, to: first + 48, by: 6) {
            let shipment = try parsedBack(parcel, hoursAfterHandIn: hours)
            #expect(shipment.status.label == "投函予定", "\(hours) h after hand-in")
            #expect(shipment.status.code == .inTransit)
            #expect(shipment.product == "クロネコゆうメール")
            let dropDay = JapanDateTime(parcel.registeredAt.addingTimeInterval(Scenario.mailDropHours * 3600))
            #expect(
                shipment.scheduledDelivery?.date
                    == JapanDateTime(year: dropDay.year, month: dropDay.month, day: dropDay.day))
            #expect(shipment.scheduledDelivery?.windowStart == nil)
        }
        let almost = try parsedBack(parcel, hoursAfterHandIn: Scenario.mailDropHours - 1 / 60)
        #expect(almost.status.label == "投函予定")
        let dropped = try parsedBack(parcel, hoursAfterHandIn: Scenario.mailDropHours)
        #expect(dropped.status.label == "投函完了")
        #expect(dropped.status.code == .delivered)
        #expect(dropped.status.isTerminal)
        #expect(dropped.scheduledDelivery == nil)
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
