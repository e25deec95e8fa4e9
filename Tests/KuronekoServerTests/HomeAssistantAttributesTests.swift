import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// What Home Assistant is told of a parcel a family has to act on: after a missed delivery, until when it is kept,
/// whom to call and the page to ask for redelivery; nothing of keeping for a parcel on its way.
@Suite("Home Assistant: a missed parcel's attributes")
struct HomeAssistantAttributesTests {
    static func shipment(_ number: TrackingNumber, missed: Bool) -> Shipment {
        let attempt = JapanDateTime(year: 2026, month: 12, day: 6, time: .init(hour: 11, minute: 0))
        var shipment = Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(
                code: missed ? .attemptFailed : .inTransit, label: missed ? "持戻（ご不在）" : "輸送中", labelEnglish: nil,
                summary: nil, note: nil, isTerminal: false),
            product: "宅急便", scheduledDelivery: nil,
            events: [
                TrackingEvent(label: "配達中", labelEnglish: nil, code: .outForDelivery, at: attempt, dateText: nil, place: nil)
            ] + (missed
                ? [TrackingEvent(label: "持戻（ご不在）", labelEnglish: nil, code: .attemptFailed, at: attempt, dateText: nil, place: nil)]
                : []),
            deliveredAt: nil)
        shipment.offices = [CarrierOffice(role: "配達", name: "渋谷センター", telephone: "080-0000-1111")]
        shipment.changeDeliveryURL = URL(string: "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=\(number.digits)")
        return shipment
    }

    @Test("kept_until, the office and its telephone, the redelivery page; none of keeping on the way")
    func missedParcel() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(2)
        for number in numbers {
            _ = try await harness.store.add(number, carrier: .yamato, label: nil, owner: .local, webhook: nil, now: harness.clock.now)
        }
        let missed = Self.shipment(numbers[0], missed: true)
        let onTheWay = Self.shipment(numbers[1], missed: false)
        let attributes = HomeAssistantEntities.summary(
            try #require(try await harness.store.watch(numbers[0], owner: .local)), missed, japanese: true)
        #expect(attributes["kept_until"] as? String == "2026-12-13")
        #expect(attributes["office"] as? String == "渋谷センター")
        #expect(attributes["telephone"] as? String == "080-0000-1111")
        #expect(attributes["redelivery_url"] as? String == missed.changeDeliveryURL?.absoluteString)
        let moving = HomeAssistantEntities.summary(
            try #require(try await harness.store.watch(numbers[1], owner: .local)), onTheWay, japanese: true)
        #expect(moving["kept_until"] is NSNull && moving["telephone"] is NSNull && moving["label"] is NSNull)
        // Every attribute is there on every parcel, null when not known (a card's template reads them unwarned).
        #expect(Set(moving.keys) == Set(HomeAssistantEntities.parcelAttributes))
        #expect(Set(attributes.keys) == Set(HomeAssistantEntities.parcelAttributes))
        #expect(moving["redelivery_url"] as? String == onTheWay.changeDeliveryURL?.absoluteString)
        // A page without its own link: the carrier's page for the number, as the web app's button opens.
        var bare = missed
        bare.changeDeliveryURL = nil
        let fallback = HomeAssistantEntities.summary(
            try #require(try await harness.store.watch(numbers[0], owner: .local)), bare, japanese: true)
        #expect(fallback["redelivery_url"] as? String == "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=\(numbers[0].digits)")
    }
}

/// A delivered parcel's sensor shows 配達完了 for the rest of the day it was delivered (Japan's day), counted in no
/// fixed sensor, and is gone the next day.
@Suite("Home Assistant: 配達完了 until the day ends")
struct HomeAssistantDeliveredTests {
    @Test func shownTheDayItArrivedGoneTheNext() async throws {
        let harness = await Harness()
        let number = ValidNumbers.numbers(1)[0]
        _ = try await harness.store.add(number, carrier: .yamato, label: "靴", owner: .local, webhook: nil, now: harness.clock.now)
        let arrived = try #require(JapanDateTime(year: 2026, month: 12, day: 6, time: .init(hour: 10, minute: 5)))
        var shipment = MorningSummaryTests.shipment(number, .delivered, "配達完了")
        shipment.deliveredAt = arrived
        _ = try await harness.store.record(shipment, fetchedAt: harness.clock.now) { _, _ in nil }
        let watch = try #require(try await harness.store.watch(number, owner: .local))
        var settings = HomeAssistantSettings()
        settings.parcelSensors = true
        let state = "kuroneko/parcel_\(number.digits)/state"
        let config = "homeassistant/sensor/kuroneko/parcel_\(number.digits)/config"
        func messages(at hour: Int, day: Int) throws -> [String: Data] {
            let now = try #require(JapanDateTime(year: 2026, month: 12, day: day, time: .init(hour: hour, minute: 0))).instant
            return HomeAssistantEntities.messages([], delivered: [watch], now: now, settings: settings, version: "test")
        }
        let evening = try messages(at: 23, day: 6)
        #expect(evening[state] == Data("配達完了".utf8))
        #expect(evening[config] != nil)
        #expect(evening["kuroneko/in_transit/state"] == Data("0".utf8), "counted in transit no more")
        #expect(evening["kuroneko/arriving_today/state"] == Data("0".utf8))
        let nextMorning = try messages(at: 0, day: 7)
        #expect(nextMorning[state] == nil && nextMorning[config] == nil, "gone the next day")
        // Without parcel sensors, nothing of it.
        settings.parcelSensors = false
        #expect(HomeAssistantEntities.messages([], delivered: [watch], now: arrived.instant, settings: settings, version: "t")[state] == nil)
    }
}

/// One meaning of "today": the web app's 今日 (the list's summary and its `forecast=today` narrowing), the morning
/// summary's 配達中 and 今日お届け予定, and Home Assistant's 今日届く荷物 count the same parcels: out for delivery
/// today, or planned for today (the day the recipient asked for, else the carrier's), not one out since yesterday,
/// held up, waiting after a missed delivery, delivered, or planned for another day.
@Suite("One today: the web app, the morning summary and Home Assistant")
struct OneTodayTests {
    @Test func theSameParcelsEverywhere() async throws {
        let harness = await Harness()
        let now = harness.clock.now
        let today = JapanDateTime(now)
        let tomorrow = JapanDateTime(now.addingTimeInterval(86_400))
        func day(_ date: JapanDateTime) -> ScheduledDelivery {
            ScheduledDelivery(raw: "", date: JapanDateTime(year: date.year, month: date.month, day: date.day), windowStart: nil, windowEnd: nil)
        }
        let numbers = ValidNumbers.numbers(8)
        var requested = MorningSummaryTests.shipment(numbers[2], .inTransit, "輸送中", planned: day(tomorrow))
        requested.requestedDelivery = day(today)
        let missedAt = JapanDateTime(now.addingTimeInterval(-3_600))
        let shipments = [
            MorningSummaryTests.shipment(
                numbers[0], .outForDelivery, "配達中",
                events: [TrackingEvent(label: "配達中", labelEnglish: nil, code: .outForDelivery, at: missedAt, dateText: nil, place: nil)]),
            MorningSummaryTests.shipment(numbers[1], .inTransit, "輸送中", planned: day(today)),
            requested,
            MorningSummaryTests.shipment(
                numbers[3], .attemptFailed, "持戻（ご不在）", planned: day(today),
                events: [TrackingEvent(label: "持戻（ご不在）", labelEnglish: nil, code: .attemptFailed, at: missedAt, dateText: nil, place: nil)]),
            MorningSummaryTests.shipment(numbers[4], .inTransit, "輸送中", planned: day(tomorrow)),
            MorningSummaryTests.shipment(numbers[5], .delivered, "配達完了", planned: day(today)),
            // Out since yesterday, and no news: not today's on that evidence.
            MorningSummaryTests.shipment(
                numbers[6], .outForDelivery, "配達中",
                events: [TrackingEvent(
                    label: "配達中", labelEnglish: nil, code: .outForDelivery,
                    at: JapanDateTime(now.addingTimeInterval(-86_400)), dateText: nil, place: nil)]),
            // Held up (調査中): the carrier's day no longer holds.
            MorningSummaryTests.shipment(numbers[7], .exception, "調査中", planned: day(today)),
        ]
        for (number, shipment) in zip(numbers, shipments) {
            _ = try await harness.store.add(number, carrier: .yamato, label: nil, owner: .local, webhook: nil, now: now)
            _ = try await harness.store.record(shipment, fetchedAt: now) { [now] _, _ in now.addingTimeInterval(600) }
        }
        let expected: Set<String> = Set(numbers[0..<3].map(\.digits))

        // The web app: the count on its 今日 chip and the list it narrows to.
        var query = WatchQuery()
        let summary = try await harness.store.watchSummary(owner: .local, matching: query, now: now)
        query.forecast = .today
        let narrowed = try await harness.store.watches(owner: .local, matching: query, after: nil, limit: 100, now: now)
        #expect(summary.forecastToday == expected.count)
        #expect(Set(narrowed.map(\.number.digits)) == expected)
        query.forecast = .tomorrow
        let tomorrows = try await harness.store.watches(owner: .local, matching: query, after: nil, limit: 100, now: now)
        #expect(tomorrows.map(\.number.digits) == [numbers[4].digits], "the requested one is today's, not tomorrow's")
        #expect(summary.forecastTomorrow == 1)

        // Home Assistant.
        let watches = try await harness.store.watches(owner: .local, filter: .active, after: nil, limit: 100)
        let messages = HomeAssistantEntities.messages(watches, now: now, settings: HomeAssistantSettings(), version: "t")
        #expect(messages["kuroneko/arriving_today/state"] == Data("\(expected.count)".utf8))
        let listed = (try JSONSerialization.jsonObject(with: messages["kuroneko/arriving_today/attributes"] ?? Data()) as? [String: Any])?["parcels"] as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["number"] as? String } ?? []) == expected)

        // The morning summary: out for delivery and planned today (the missed one in a section of its own).
        var parcels: [(number: TrackingNumber, label: String?, shipment: Shipment)] = []
        for (number, shipment) in zip(numbers, shipments).prefix(6) { parcels.append((number: number, label: nil, shipment: shipment)) }
        let morning = try #require(MorningSummary.compose(parcels, today: today))
        func digits(_ items: [MorningSummary.Item]) -> [String] { items.map { String($0.number.filter(\.isNumber)) } }
        let comes: [MorningSummary.Item] = morning.items.filter { $0.section == .out || $0.section == .today }
        #expect(Set(digits(comes)) == expected)
        #expect(digits(morning.items.filter { $0.section == .waiting }) == [numbers[3].digits])
    }
}
