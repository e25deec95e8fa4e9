import Foundation
import Kuroneko
import KuronekoTestSupport
import Synchronization
import Testing
import KuronekoCrypto

@testable import KuronekoNotify
@testable import KuronekoServer
@testable import KuronekoStore

/// Pure policy: poll intervals, delivery retries, signatures, webhook addresses, the calendar.
@Suite("Watch policies", .timeLimit(.minutes(10)))
struct PolicyTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test(
        "poll intervals by status; terminal ones stop",
        arguments: [
            (StatusCode.outForDelivery, 600.0), (.inTransit, 1_800), (.attemptFailed, 1_800), (.infoReceived, 7_200),
            (.exception, 3_600),
        ])
    func intervals(code: StatusCode, seconds: Double) {
        let shipment = WatchStoreTests.shipment(ValidNumbers.numbers(1)[0], "x", code)
        let schedule = PollSchedule(speed: 1, jitter: 0.1)
        #expect(schedule.interval(for: shipment, watchCreatedAt: now, now: now) == seconds)
        let next = schedule.nextCheck(for: shipment, watchCreatedAt: now, now: now, random: 1)
        #expect(next == now.addingTimeInterval(seconds * 1.1))
        #expect(
            PollSchedule(speed: 100).nextCheck(for: shipment, watchCreatedAt: now, now: now, random: 0.5)
                == now.addingTimeInterval(seconds / 100))
    }

    @Test("delivered and invalid stop; an unregistered number backs off to 6 h and expires after 30 days")
    func stopping() {
        let number = ValidNumbers.numbers(1)[0]
        let schedule = PollSchedule()
        #expect(
            schedule.interval(
                for: WatchStoreTests.shipment(number, "配達完了", .delivered, terminal: true), watchCreatedAt: now, now: now
            ) == nil)
        #expect(
            schedule.interval(
                for: WatchStoreTests.shipment(number, "伝票番号誤り", .invalidNumber), watchCreatedAt: now, now: now) == nil)
        let unregistered = WatchStoreTests.shipment(number, "伝票番号未登録", .notFound)
        #expect(schedule.interval(for: unregistered, watchCreatedAt: now, now: now) == 900)
        #expect(
            schedule.interval(for: unregistered, watchCreatedAt: now, now: now.addingTimeInterval(5 * 86_400)) == 21_600
        )
        #expect(
            schedule.interval(for: unregistered, watchCreatedAt: now, now: now.addingTimeInterval(31 * 86_400)) == nil)
    }

    @Test("delivery retries double from 10 s, at most an hour apart, and stop 24 h after the change")
    func retries() {
        let policy = DeliveryRetryPolicy()
        #expect(policy.retry(after: 1, createdAt: now, now: now, random: 1) == now.addingTimeInterval(10))
        #expect(policy.retry(after: 3, createdAt: now, now: now, random: 1) == now.addingTimeInterval(40))
        #expect(policy.retry(after: 30, createdAt: now, now: now, random: 1) == now.addingTimeInterval(3_600))
        #expect(policy.retry(after: 5, createdAt: now, now: now.addingTimeInterval(86_400), random: 1) == nil)
    }

    @Test("the signature is HMAC-SHA256 over \"t.body\" (RFC 4231 test case 2 for the primitive)")
    func signature() {
        #expect(
            Secrets.hmacSHA256(key: "Jefe", message: Data("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let body = Data(#"{"id":"x"}"#.utf8)
        let header = WebhookPayload.signature(of: body, secret: "k", at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(header == "t=1700000000,v1=" + Secrets.hmacSHA256(key: "k", message: Data("1700000000.".utf8) + body))
    }

    @Test(
        "webhook URLs: the form is checked, and private destinations refused",
        arguments: [
            ("ftp://example.com/x", "only http:// and https://"),
            ("http://user:pw@example.com/", "user name or password"),
            ("http:///nohost", "usable URL"), ("http://127.0.0.1/h", "loopback"), ("http://10.1.2.3/h", "private"),
            ("http://169.254.169.254/latest", "link-local"), ("http://[::1]/h", "loopback"),
            ("http://[fd00::1]/h", "private"), ("http://224.0.0.1/h", "multicast"),
            ("http://[::ffff:192.168.1.1]/h", "private"),
            ("http://" + String(repeating: "a", count: 2_100), "characters long"),
        ])
    func addresses(url: String, reason: String) {
        do {
            _ = try WebhookAddress(url).resolve(allowPrivate: false)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test("with private webhooks allowed, loopback resolves")
    func allowPrivate() async throws {
        #expect(try WebhookAddress("http://127.0.0.1:9/h").resolve(allowPrivate: true).count == 1)
    }

    @Test("the calendar: one event per scheduled delivery, stable UID, folded lines, CRLF")
    func calendar() async throws {
        let number = ValidNumbers.numbers(1)[0]
        var shipment = WatchStoreTests.shipment(number, "輸送中", .inTransit)
        shipment.scheduledDelivery = ScheduledDelivery(
            raw: "12/01 14:00-16:00", date: JapanDateTime(year: 2026, month: 12, day: 1), windowStart: "14:00",
            windowEnd: "16:00")
        let watch = Watch(
            id: 7, owner: .local, number: number, label: String(repeating: "長いラベル", count: 10), createdAt: now,
            active: true, checkedAt: now, nextCheckAt: now,
            latest: LatestShipment(fetchedAt: now, json: try JSONEncoder().encode(shipment)), webhookURL: nil)
        let feed = DeliveryCalendar.feed(for: [watch], now: now)
        #expect(feed.hasPrefix("BEGIN:VCALENDAR\r\n") && feed.hasSuffix("END:VCALENDAR\r\n"))
        #expect(feed.contains("UID:watch-7-\(number.digits)@kuroneko"))
        #expect(feed.contains("DTSTART:20261201T050000Z\r\nDTEND:20261201T070000Z"))
        for line in feed.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75) }
    }

    @Test("the calendar takes the requested window when the forecast has no date, and the forecast over it")
    func calendarRequestedWindow() async throws {
        let numbers = ValidNumbers.numbers(3)
        let requested = ScheduledDelivery(
            raw: "12/02　18:00-20:00", date: JapanDateTime(year: 2026, month: 12, day: 2), windowStart: "18:00",
            windowEnd: "20:00")
        func watch(_ id: Int64, _ number: TrackingNumber, scheduled: ScheduledDelivery?) throws -> Watch {
            var shipment = WatchStoreTests.shipment(number, "持戻（ご不在）", .attemptFailed)
            shipment.scheduledDelivery = scheduled
            shipment.requestedDelivery = requested
            return Watch(
                id: id, owner: .local, number: number, label: nil, createdAt: now, active: true, checkedAt: now,
                nextCheckAt: now, latest: LatestShipment(fetchedAt: now, json: try JSONEncoder().encode(shipment)),
                webhookURL: nil)
        }
        let timeOnly = ScheduledDelivery(raw: "08:00-12:00", date: nil, windowStart: "08:00", windowEnd: "12:00")
        let dated = ScheduledDelivery(
            raw: "12/03", date: JapanDateTime(year: 2026, month: 12, day: 3), windowStart: nil, windowEnd: nil)
        let feed = DeliveryCalendar.feed(
            for: [
                try watch(1, numbers[0], scheduled: nil), try watch(2, numbers[1], scheduled: timeOnly),
                try watch(3, numbers[2], scheduled: dated),
            ], now: now)
        let events = feed.components(separatedBy: "BEGIN:VEVENT").dropFirst().map {
            $0.replacingOccurrences(of: "\r\n ", with: "")
        }
        try #require(events.count == 3)
        for event in events.prefix(2) {
            #expect(event.contains("DTSTART:20261202T090000Z\r\nDTEND:20261202T110000Z"))
            #expect(event.contains("requested 12/02　18:00-20:00"))
        }
        #expect(events[2].contains("DTSTART;VALUE=DATE:20261203\r\nDTEND;VALUE=DATE:20261204"))
        #expect(events[2].contains("scheduled 12/03") && !events[2].contains("requested"))
    }
}

/// The poller over a real store, with an injected clock and a scripted check.
@Suite("Watch poller", .timeLimit(.minutes(10)))
struct WatchPollerTests {
    @Test("due numbers are checked ten at a time; a failed check is postponed, not retried at once")
    func batches() async throws {
        let store = try SQLiteWatchStore(path: WatchStoreTests.temporaryPath())
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_000_000))
        let numbers = ValidNumbers.numbers(25)
        for number in numbers { _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: clock.now) }
        let failing = numbers[3]
        let checked = CheckLog()
        let poller = WatchPoller(store: store, clock: clock, schedule: PollSchedule()) { number, _ in
            checked.add(number)
            guard number != failing else { return false }
            // What a fetch does: the answer is recorded, and the next check set.
            _ = try? await store.record(
                WatchStoreTests.shipment(number, "輸送中", .inTransit), fetchedAt: clock.now
            ) { _, _ in clock.now.addingTimeInterval(1_800) }
            return true
        }
        #expect(await poller.pollOnce() == 10)
        #expect(await poller.pollOnce() == 10)
        #expect(await poller.pollOnce() == 5)
        #expect(await poller.pollOnce() == 0, "nothing is due until the clock moves")
        #expect(Set(checked.all) == Set(numbers) && checked.all.count == 25)
        #expect(poller.statistics.checks == 25 && poller.statistics.failures == 1)
        clock.advance(by: .seconds(150))
        #expect(await poller.pollOnce() == 1, "the failed number comes back after its pause")
        #expect(checked.all.last == failing)
    }
}

/// The poller fills a POST with numbers due soon: within half their own interval, of the carriers already
/// being asked, never a number held back, never one checked before half its interval.
@Suite("Watch poller: full POSTs", .timeLimit(.minutes(10)))
struct WatchPollerFillTests {
    private static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// Records `number` as checked at `checked`, next due at `next`.
    private static func checked(
        _ store: SQLiteWatchStore, _ number: TrackingNumber, carrier: Carrier = .yamato, at checked: TimeInterval,
        next: TimeInterval
    ) async throws {
        let shipment = Shipment(
            trackingNumber: number, carrier: carrier,
            status: ShipmentStatus(
                code: .inTransit, label: "輸送中", labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        _ = try await store.record(shipment, fetchedAt: start.addingTimeInterval(checked)) { _, _ in
            start.addingTimeInterval(next)
        }
    }

    @Test("three due fill with the seven due within half their interval; not sooner, not other carriers")
    func fill() async throws {
        let store = try SQLiteWatchStore(path: WatchStoreTests.temporaryPath())
        let clock = ManualClock(start: Self.start)
        let numbers = ValidNumbers.numbers(14)
        for (index, number) in numbers.enumerated() {
            let carrier: Carrier = index == 13 ? .sagawa : .yamato
            _ = try await store.add(number, carrier: carrier, label: nil, owner: .local, webhook: nil, now: clock.now)
            switch index {
            case 0..<3: try await Self.checked(store, number, at: -1_800, next: 0)  // due now
            case 3..<10: try await Self.checked(store, number, at: -1_500, next: 300)  // 300 s of 1,800: a sixth
            case 10: try await Self.checked(store, number, at: -800, next: 1_000)  // 1,000 s of 1,800: too soon
            case 11: try await Self.checked(store, number, at: -200, next: 400)  // two thirds of 10 minutes: too soon
            case 12: try await Self.checked(store, number, at: -500, next: 1_000)  // 1,000 s of 1,500: too soon
            default: try await Self.checked(store, number, carrier: .sagawa, at: -1_500, next: 300)  // Sagawa's
            }
        }
        let polled = CheckLog()
        let poller = WatchPoller(store: store, clock: clock, schedule: PollSchedule()) { number, _ in
            polled.add(number)
            try? await Self.checked(
                store, number, at: clock.now.timeIntervalSince(Self.start),
                next: clock.now.timeIntervalSince(Self.start) + 1_800)
            return true
        }
        #expect(await poller.pollOnce() == 10)
        #expect(Set(polled.all) == Set(numbers.prefix(10)))
        #expect(await poller.pollOnce() == 0, "nothing is due: nothing goes out only to be filled")
    }

    @Test(
        "40 parcels added a minute apart fall into step: from the third hour POSTs are full",
        arguments: [[StatusCode.inTransit], [.outForDelivery, .inTransit, .infoReceived, .exception]])
    func fallIntoStep(statuses: [StatusCode]) async throws {
        let store = try SQLiteWatchStore(path: WatchStoreTests.temporaryPath())
        let clock = ManualClock(start: Self.start)
        let schedule = PollSchedule()
        let numbers = ValidNumbers.numbers(40)
        let status = Dictionary(uniqueKeysWithValues: numbers.enumerated().map { ($1, statuses[$0 % statuses.count]) })
        let random = Mutex(SeededRandom(seed: 2_512))
        let lastCheck = Mutex([TrackingNumber: Date]())
        // The shortest time between two checks of a number, as a share of its status's interval.
        let shortestGap = Mutex(Double.infinity)
        let poller = WatchPoller(store: store, clock: clock, schedule: schedule) { number, _ in
            let now = clock.now
            let shipment = WatchStoreTests.shipment(number, "輸送中", status[number] ?? .inTransit)
            if let last = lastCheck.withLock({ $0.updateValue(now, forKey: number) }),
                let interval = schedule.interval(for: shipment, watchCreatedAt: Self.start, now: now)
            {
                shortestGap.withLock { $0 = min($0, now.timeIntervalSince(last) / interval) }
            }
            _ = try? await store.record(shipment, fetchedAt: now) { watch, shipment in
                schedule.nextCheck(
                    for: shipment, watchCreatedAt: watch.createdAt, now: now, random: random.withLock { $0.next() })
            }
            return true
        }
        var batches: [(at: TimeInterval, size: Int)] = []
        var added = 0
        // Twelve simulated hours in 5-second ticks; each tick polls until nothing is due, as `run` does.
        for tick in 0..<(12 * 720) {
            let elapsed = TimeInterval(tick * 5)
            while added < numbers.count, TimeInterval(added * 60) <= elapsed {
                _ = try await store.add(numbers[added], label: nil, owner: .local, webhook: nil, now: clock.now)
                added += 1
            }
            while true {
                let size = await poller.pollOnce()
                if size == 0 { break }
                batches.append((elapsed, size))
            }
            let overdue = try await store.watches(owner: .local, filter: .active, after: nil, limit: 100)
                .filter { $0.nextCheckAt <= clock.now }
            #expect(overdue.isEmpty, "a due number was held back at \(elapsed) s")
            clock.advance(by: .seconds(5))
        }
        // The first round comes as the parcels are added; by the third hour they poll in step.
        let settled = batches.filter { $0.at >= 3 * 3_600 }
        let numbersPolled = settled.map(\.size).reduce(0, +)
        #expect(!settled.isEmpty)
        #expect(
            Double(settled.count) / Double(numbersPolled) <= 0.105,
            "\(settled.count) POSTs for \(numbersPolled) numbers: \(settled.map(\.size))")
        // None before half its interval (less its jitter, 10 %).
        #expect(shortestGap.withLock { $0 } >= 0.5 * 0.9, "\(shortestGap.withLock { $0 })")
    }
}

/// A small deterministic generator in [0, 1) (the schedule's jitter, repeatable).
private struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
}

private final class CheckLog: @unchecked Sendable {
    // @unchecked Sendable: the list behind a lock.
    private let lock = NSLock()
    private var numbers: [TrackingNumber] = []
    func add(_ number: TrackingNumber) { lock.withLock { numbers.append(number) } }
    var all: [TrackingNumber] { lock.withLock { numbers } }
}

@Suite("The label rule, shared by the API and the command line", .timeLimit(.minutes(10)))
struct WatchLabelTests {
    @Test(
        "refused: control characters (C0, DEL, C1 such as U+0085), separators, too many characters or bytes",
        arguments: [
            ("a\u{7}b", "U+0007"), ("a\u{7F}b", "U+007F"), ("a\u{85}b", "U+0085"), ("a\u{2028}b", "U+2028"),
            (String(repeating: "あ", count: 201), "201 characters"),
            ("e" + String(repeating: "\u{301}", count: 10_000), "bytes long in UTF-8"),
            (String(repeating: "🇯🇵", count: 101), "bytes long in UTF-8"),
        ])
    func refused(text: String, reason: String) {
        do {
            _ = try WatchLabel.validated(text)
            Issue.record("accepted \(text.prefix(20))")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test("accepted: 200 characters of Japanese; spaces of every kind become one plain space, ends trimmed")
    func accepted() async throws {
        #expect(try WatchLabel.validated(String(repeating: "あ", count: 200))?.count == 200)
        #expect(try WatchLabel.validated("\u{3000}靴\u{A0}と\u{3000}") == "靴 と")
        #expect(try WatchLabel.validated("   ") == nil)
        #expect(try WatchLabel.validated("") == nil)
    }
}
