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

/// The morning summary on a manual clock: made once at the channel's minute with the day's parcels (out for
/// delivery, planned for today with its window, kept after a missed delivery with its last day), nothing before,
/// nothing twice, nothing on a day without any; sent through the deliverer in the channel's language.
@Suite("Morning summary", .timeLimit(.minutes(5)))
struct MorningSummaryTests {
    static func shipment(
        _ number: TrackingNumber, _ code: StatusCode, _ label: String, planned: ScheduledDelivery? = nil,
        events: [TrackingEvent] = []
    ) -> Shipment {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: code == .delivered),
            product: nil, scheduledDelivery: planned, events: events, deliveredAt: nil)
    }

    /// The parcels of a day: out for delivery, today's with a window, tomorrow's, one missed yesterday, one delivered.
    static func day(_ today: JapanDateTime) throws -> [(number: TrackingNumber, label: String?, shipment: Shipment)] {
        let numbers = ValidNumbers.numbers(5).map(\.digits)
        let tomorrow = JapanDateTime(today.instant.addingTimeInterval(86_400))
        let yesterday = JapanDateTime(today.instant.addingTimeInterval(-86_400))
        func n(_ index: Int) throws -> TrackingNumber { try TrackingNumber(parsing: numbers[index]) }
        return [
            (try n(0), "靴", shipment(try n(0), .outForDelivery, "配達中")),
            (try n(1), "本", shipment(try n(1), .inTransit, "輸送中", planned: ScheduledDelivery(
                raw: "", date: JapanDateTime(year: today.year, month: today.month, day: today.day), windowStart: "14:00", windowEnd: "16:00"))),
            (try n(2), "米", shipment(try n(2), .inTransit, "輸送中", planned: ScheduledDelivery(
                raw: "", date: JapanDateTime(year: tomorrow.year, month: tomorrow.month, day: tomorrow.day), windowStart: nil, windowEnd: nil))),
            (try n(3), "服", shipment(try n(3), .attemptFailed, "持戻（ご不在）", events: [
                TrackingEvent(label: "持戻（ご不在）", labelEnglish: nil, code: .attemptFailed, at: yesterday, dateText: nil, place: "渋谷")])),
            (try n(4), "済", shipment(try n(4), .delivered, "配達完了")),
        ]
    }

    @Test func composed() throws {
        let today = try #require(JapanDateTime(year: 2026, month: 12, day: 4, time: .init(hour: 7, minute: 30)))
        let summary = try #require(MorningSummary.compose(try Self.day(today), today: today))
        #expect(summary.items.map(\.label) == ["靴", "本", "服"])
        #expect(summary.items.map(\.section) == [.out, .today, .waiting])
        #expect(summary.items[1].detail == "14:00–16:00")
        #expect(summary.items[2].detail == "12/10", "kept 7 days from the first attempt on 12/03")
        let japanese = Announcement(summary: summary, language: .japanese, publicURL: nil)
        #expect(japanese.title == "今日の荷物（3件）")
        #expect(japanese.body.contains("■ 配達中") && japanese.body.contains("本 (") && japanese.body.contains("14:00–16:00"))
        #expect(japanese.body.contains("12/10まで保管"))
        let english = Announcement(summary: summary, language: .english, publicURL: nil)
        #expect(english.title == "Today's parcels (3)" && english.body.contains("kept until 12/10"))
        // After a missed delivery it says whom to call and where to ask for redelivery (the page's office, else the
        // carrier's service centre).
        var parcels = try Self.day(today)
        parcels[3].shipment.offices = [CarrierOffice(role: "配達", name: "渋谷センター", telephone: "080-0000-1111")]
        parcels[3].shipment.changeDeliveryURL = URL(string: "https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=1")
        let told = try #require(MorningSummary.compose(parcels, today: today))
        #expect(told.items[2].telephone == "080-0000-1111" && told.items[2].office == "渋谷センター")
        #expect(told.items[0].telephone == nil && told.items[0].redelivery == nil, "only the missed one")
        let lines = Announcement(summary: told, language: .japanese, publicURL: nil).body.split(separator: "\n").map(String.init)
        let kept = try #require(lines.firstIndex { $0.contains("12/10まで保管") })
        #expect(lines[kept + 1] == "　連絡先: 渋谷センター 080-0000-1111")
        #expect(lines[kept + 2] == "　再配達: https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=1")
        // A summary stored by an earlier build (without these fields) still reads.
        let stored = Data(#"{"day":"2026-12-04","items":[{"section":"waiting","number":"1","detail":"12/10"}],"more":0}"#.utf8)
        #expect(MorningSummary.decode(stored)?.items.first?.telephone == nil)
        #expect(MorningSummary.decode(stored)?.items.count == 1)
        // Nothing to say: no summary. Today's planned parcel already delivered is not listed either.
        let quiet = try Self.day(today).filter { [.delivered, .inTransit].contains($0.shipment.status.code) && $0.label != "本" }
        #expect(MorningSummary.compose(quiet, today: today) == nil)
        #expect(MorningSummaryTime.minute("07:30") == 450 && MorningSummaryTime.minute("7:30") == nil)
        #expect(MorningSummaryTime.minute("24:00") == nil && MorningSummaryTime.minute("23:5") == nil)
    }

    /// The preview (`GET /v1/morning-summary`): the message a channel would get now, in either language; a day with
    /// nothing to say has no message; a language it does not have is refused by name.
    @Test func preview() async throws {
        let harness = await Harness()
        let empty = await harness.send("GET", "/v1/morning-summary")
        #expect(empty.status == 200)
        let nothing = try JSON(data: empty.body)
        #expect(nothing["title"] == .null && nothing["body"] == .null && nothing["parcels"]?.int == 0)
        #expect(nothing["day"]?.string == JapanDateTime(harness.clock.now).dateText)
        let today = JapanDateTime(harness.clock.now)
        for (number, label, shipment) in try Self.day(today) {
            _ = try await harness.store.add(number, carrier: .yamato, label: label, owner: .local, webhook: nil, now: harness.clock.now)
            let next = harness.clock.now.addingTimeInterval(600)
            _ = try await harness.store.record(shipment, fetchedAt: harness.clock.now) { _, _ in next }
        }
        let answer = await harness.send("GET", "/v1/morning-summary")
        let told = try JSON(data: answer.body)
        #expect(answer.status == 200)
        #expect(told["title"]?.string == "今日の荷物（3件）" && told["parcels"]?.int == 3)
        #expect(told["body"]?.string?.contains("■ 配達中") == true && told["body"]?.string?.contains("不在で保管中") == true)
        let english = try JSON(data: await harness.send("GET", "/v1/morning-summary?lang=en").body)
        #expect(english["title"]?.string == "Today's parcels (3)")
        let refused = await harness.send("GET", "/v1/morning-summary?lang=fr")
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("lang is ja or en"))
    }

    @Test func onceAtTheChannelsMinute() async throws {
        let harness = await Harness()
        for bad in [#""summary_at": "25:00""#, #""summary_at": 730"#, #""summary_at": "07:30", "kinds": ["delivered"]"#] {
            let refused = await harness.send("POST", "/v1/channels", json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/x", \#(bad)}"#)
            #expect(refused.status == 400, "\(bad)")
        }
        let added = await harness.send(
            "POST", "/v1/channels",
            json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/morning", "kinds": ["morning_summary"], "summary_at": "06:45"}"#)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        #expect(try JSON(data: added.body)["summary_at"]?.string == "06:45")
        // Another channel of the list that hears everything else but not the summary.
        _ = await harness.send("POST", "/v1/channels", json: #"{"kind": "ntfy", "url": "http://127.0.0.1:9/changes"}"#)

        // Move the clock to 06:44 Japan time tomorrow.
        let start = JapanDateTime(harness.clock.now)
        let minute = (start.time?.hour ?? 0) * 60 + (start.time?.minute ?? 0)
        harness.clock.advance(by: .seconds(Double((24 * 60 - minute + 6 * 60 + 44) * 60)))
        let today = JapanDateTime(harness.clock.now)
        for parcel in try Self.day(today) {
            _ = try await harness.store.add(parcel.number, label: parcel.label, owner: .local, webhook: nil, now: harness.clock.now)
            _ = try await harness.store.record(parcel.shipment, fetchedAt: harness.clock.now) { _, _ in harness.clock.now + 3_600 }
        }
        let fake = ChannelTests.FakeService([])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: fake, clock: harness.clock, vapid: nil, publicURL: nil, log: .silent)
        while await deliverer.deliverOnce() > 0 {}  // what recording the parcels announced
        let announced = fake.requests.withLock { $0.count }
        let rung = Mutex(0)
        let service = MorningSummaryService(store: harness.store, clock: harness.clock, failures: StoreFailures()) {
            rung.withLock { $0 += 1 }
        }
        #expect(await service.tick() == 0, "06:44 is before the channel's minute")
        harness.clock.advance(by: .seconds(60))
        #expect(await service.tick() == 1)
        #expect(await service.tick() == 0, "once a day")
        #expect(rung.withLock { $0 } == 1)
        #expect(await deliverer.deliverOnce() == 1)
        let summary = try #require(fake.requests.withLock { Array($0.dropFirst(announced)) }.first)
        #expect(summary.url.lastPathComponent == "morning")
        let text = String(decoding: summary.body, as: UTF8.self)
        #expect(text.contains("靴") && text.contains("14:00–16:00") && text.contains("服") && !text.contains("米"), "\(text)")

        // The next day nothing is on its way today: nothing is sent.
        for number in try Self.day(today).map(\.number) { _ = try await harness.store.remove(number, owner: .local) }
        harness.clock.advance(by: .seconds(86_400))
        #expect(await service.tick() == 0)
        #expect(await deliverer.deliverOnce() == 0)
        // A server down all morning makes none late in the evening (3 hours at most).
        harness.clock.advance(by: .seconds(86_400 + 4 * 3_600))
        _ = try await harness.store.add(Self.day(today)[0].number, label: "靴", owner: .local, webhook: nil, now: harness.clock.now)
        _ = try await harness.store.record(try Self.day(today)[0].shipment, fetchedAt: harness.clock.now) { _, _ in harness.clock.now + 3_600 }
        #expect(try await harness.store.morningSummariesDue(day: JapanDateTime(harness.clock.now).dateText, minute: 11 * 60).isEmpty)
    }
}
