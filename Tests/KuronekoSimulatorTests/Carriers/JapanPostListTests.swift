import Foundation
@testable import Kuroneko
import KuronekoHTTP
@testable import KuronekoSimulator
import Synchronization
import Testing

/// Japan Post asked ten at a time through the simulator: one search of the ten numbers answers each one's
/// latest row, and a number's detail page (its whole history) is fetched only when that row is new here or
/// differs from the one seen with the history kept.
@Suite("Japan Post ten at a time", .timeLimit(.minutes(5)))
struct JapanPostListTests {
    private static let epoch = Date(timeIntervalSince1970: 1_790_000_000)

    private struct Logged: HTTPTransport {
        let inner: SimulatorTransport
        let log: CarrierDetectionTests.RequestLog
        func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
            log.add(request)
            return try await inner.send(request)
        }
    }

    /// Ten Japan Post numbers of the simulator (12 digits from 9, none from 99), with their check digits.
    private static let numbers: [TrackingNumber] = (0..<10).map { index in
        let eleven = 90_000_000_000 + UInt64(index) * 104_729
        return try! TrackingNumber(parsing: String(eleven) + String(eleven % 7))
    }

    @Test("an unchanged batch costs one request; a changed number's history is fetched whole")
    func tenAtATime() async throws {
        let clock = SimulatorClock(start: Self.epoch, speed: 0)
        let log = CarrierDetectionTests.RequestLog()
        let simulator = SimulatorResponder(clock: clock, epoch: Self.epoch)
        var configuration = TrackingClient.Configuration.defaults(for: .japanPost)
        configuration.endpoint = URL(string: "http://jp.test")!
        configuration.minimumRequestInterval = .zero
        configuration.batchWindow = .seconds(5)
        configuration.retry = RetryPolicy(maxRetries: 0)
        let client = TrackingClient(
            configuration: configuration, transport: Logged(inner: SimulatorTransport(simulator: simulator), log: log))
        func steps(_ number: TrackingNumber, at now: Date) -> [SimulatedCarrierParcel.Step] {
            SimulatedCarrierParcel(number: number, carrier: .japanPost, epoch: Self.epoch).steps(at: now)
        }
        func paths(from start: Int) -> [String] { log.all.dropFirst(start).map(\.url.path) }

        // First: the search, then the detail of every number it found (none is known yet).
        let first = try await client.track(Self.numbers)
        let found = Self.numbers.filter { !steps($0, at: Self.epoch).isEmpty }
        #expect(found.count > 2 && found.count < 10, "the ten should be at several steps: \(found.count) handed in")
        #expect(paths(from: 0) == ["/services/srv/search"] + found.map { _ in "/services/srv/search/direct" })
        #expect(log.all.first?.url.query?.contains("requestNo10=\(Self.numbers[9].digits)") == true)
        for (number, shipment) in zip(Self.numbers, first) {
            #expect(shipment.events.count == steps(number, at: Self.epoch).count)
        }

        // Again, nothing changed: the search alone, 0.1 requests a number.
        let asked = log.all.count
        let again = try await client.track(Self.numbers)
        #expect(paths(from: asked) == ["/services/srv/search"])
        #expect(again == first)

        // Three hours on: the details of those whose latest row moved, each with its whole history.
        let later = Self.epoch.addingTimeInterval(3 * 3_600)
        clock.set(now: later, speed: nil)
        let moved = Self.numbers.filter {
            !steps($0, at: later).isEmpty && steps($0, at: later).last != steps($0, at: Self.epoch).last
        }
        #expect(!moved.isEmpty && moved.count < 10)
        let before = log.all.count
        let third = try await client.track(Self.numbers)
        #expect(paths(from: before) == ["/services/srv/search"] + moved.map { _ in "/services/srv/search/direct" })
        #expect(log.all.dropFirst(before + 1).compactMap { $0.url.query } == moved.map {
            "reqCodeNo1=\($0.digits)&searchKind=S002&locale=ja"
        })
        for (number, shipment) in zip(Self.numbers, third) {
            #expect(shipment.events.map(\.label) == steps(number, at: later).map(\.label), "\(number.digits)")
        }
    }

    @Test("the list rows decide: a row unchanged keeps the history; a changed, unseen or missing one does not")
    func answers() throws {
        let number = try TrackingNumber(parsing: "647933503475")
        func listed(_ label: String, _ code: StatusCode, events: Bool = true) -> Shipment {
            Shipment(
                trackingNumber: number, carrier: .japanPost,
                status: ShipmentStatus(code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: false),
                product: "ゆうパック", scheduledDelivery: nil,
                events: events
                    ? [TrackingEvent(label: label, labelEnglish: nil, code: code, at: nil, dateText: "2026/10/12 09:30", place: "高輪郵便局")]
                    : [],
                deliveredAt: nil)
        }
        let out = listed("持ち出し中", .outForDelivery)
        var history = out
        history.events.insert(
            TrackingEvent(label: "引受", labelEnglish: nil, code: .infoReceived, at: nil, dateText: "2026/10/11 09:00", place: "新東京郵便局"),
            at: 0)
        let row = try #require(JapanPostListing.Row(out))
        #expect(JapanPostListing.answers(for: [out]) { _ in (row, history) } == [.kept(history)])
        #expect(JapanPostListing.answers(for: [out]) { _ in nil } == [.fetch(row)])
        let delivered = listed("お届け先にお届け済み", .delivered)
        #expect(JapanPostListing.answers(for: [delivered]) { _ in (row, history) } == [.fetch(JapanPostListing.Row(delivered))])
        let missing = listed("＊＊ お問い合わせ番号が見つかりません。", .notFound, events: false)
        #expect(JapanPostListing.answers(for: [missing]) { _ in (row, history) } == [.listed(missing)])
    }
}
