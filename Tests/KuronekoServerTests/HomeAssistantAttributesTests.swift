import Foundation
import Kuroneko
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
