import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Webhook deliveries do not wait for each other: a receiver that trickles its answer or hangs costs one
/// attempt its deadline and delays nobody else; a receiver that answers 410 Gone ends its subscription.
@Suite("webhooks: one slow receiver holds up nobody", .serialized, .timeLimit(.minutes(10)))
struct DeliveryIndependenceTests {
    private static func temporaryPath() -> String { WebhookAndCrashTests.temporaryPath() }

    private static func shipment(_ number: TrackingNumber, _ label: String, _ code: StatusCode) -> Shipment {
        WebhookAndCrashTests.shipment(number, label, code)
    }

    /// Adds a watch with a webhook and records two statuses, so one change waits in the outbox.
    private static func watch(
        _ number: TrackingNumber, url: String, store: SQLiteWatchStore, now: Date
    ) async throws {
        _ = try await store.add(number, label: nil, owner: .local, webhook: (url, "whsec_test"), now: now)
        try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: { _, _ in now })
        try await store.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: { _, _ in now })
    }

    /// A receiver that takes the request, then sends its answer one byte every 200 ms, for as long as the
    /// connection stays open: only the sender's deadline ends it. `held` is told, on the receiver's thread, once
    /// the sender has closed the connection.
    private static func trickling(held: HeldConnection? = nil) async throws -> RawUpstream {
        try RawUpstream { socket in
            for byte in Data("HTTP/1.1 204 No Content\r\n".utf8).cycled() {
                guard RawUpstream.write(socket, Data([byte])) else {
                    held?.closed()
                    return
                }
                // The pause is the hostile receiver's behaviour under test, not a wait for an event.
                usleep(200_000)
            }
        }
    }

    @Test("a receiver trickling one byte at a time is cut off by the sender's deadline")
    func trickle() async throws {
        let held = HeldConnection()
        let receiver = try await Self.trickling(held: held)
        let sender = CurlDeliverySender(allowPrivate: true, timeout: 2)
        let outcome = await sender.send(
            Data("{}".utf8), signature: "t=1,v1=x", to: "http://127.0.0.1:\(receiver.port)/hook")
        // The receiver trickles for ever: that the attempt ended at all, as the deadline's, and that the receiver
        // saw its connection closed, is the deadline at work (how long it took is bench/slow-receivers.sh's).
        #expect(!outcome.delivered)
        #expect(outcome.error?.contains("within 2 s") == true, "\(String(describing: outcome.error))")
        #expect(await onOwnThread { held.wait(within: 120) }, "the receiver saw no close")
    }

    @Test("while one watch's receiver trickles, another watch's delivery goes out before the slow attempt ends")
    func independent() async throws {
        let slowHeld = HeldConnection()
        let slow = try await Self.trickling(held: slowHeld)
        // What the fast receiver sees when its request comes: whether the slow attempt was still going.
        let slowStillHeld = Seen()
        let fast = try FakeUpstream { _ in
            slowStillHeld.values.withLock { $0.append(!slowHeld.isClosed) }
            return .init(status: 204, contentType: "text/plain", body: Data())
        }
        defer { fast.stop() }
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        let numbers = ValidNumbers.numbers(2)
        let now = Date()
        try await Self.watch(numbers[0], url: "http://127.0.0.1:\(slow.port)/hook", store: store, now: now)
        try await Self.watch(numbers[1], url: "http://127.0.0.1:\(fast.port)/hook", store: store, now: now)
        let lines = LogLines()
        // A deadline far longer than the fast delivery takes even on a loaded machine: the order below is not a race.
        let deliverer = WebhookDeliverer(
            store: store, sender: CurlDeliverySender(allowPrivate: true, timeout: 60), clock: SystemClock(),
            log: ServerLogging.events(format: .text) { lines.add($0) })
        let outbox = OutboxDeliverer(lanes: [deliverer], clock: SystemClock())
        let running = Task { await outbox.run(tick: .milliseconds(100)) }
        defer { running.cancel() }
        #expect(await fast.waitForAnswers(timeout: .seconds(120)) { $0.count == 1 })
        #expect(await lines.wait(for: "status=204 result=delivered", timeout: 120))
        #expect(slowStillHeld.values.withLock { $0 } == [true], "the fast delivery went out while the slow one was held")
        #expect(deliverer.inFlight >= 1, "the slow attempt is still going")
        let fastRecords = try #require(try await store.deliveries(of: numbers[1], owner: .local))
        #expect(fastRecords.map(\.status) == [204])
        #expect(try await store.deliveries(of: numbers[0], owner: .local)?.isEmpty != false, "the slow one has no outcome yet")
        running.cancel()
        await running.value
    }

    @Test(
        "beside a channel that never answers and one that trickles a byte a second, a healthy channel is told five times over while both are held"
    )
    func healthyChannelBesideSlowOnes() async throws {
        // Accepts, reads, and never answers: only the sender's deadline ends the connection.
        let connected = DispatchSemaphore(value: 0)
        let hanging = try RawUpstream { socket in
            connected.signal()
            var byte = UInt8(0)
            while recv(socket, &byte, 1, 0) > 0 {}
        }
        let trickling = try RawUpstream { socket in
            connected.signal()
            for byte in Data("HTTP/1.1 204 No Content\r\n".utf8).cycled() {
                guard RawUpstream.write(socket, Data([byte])) else { return }
                // The pause is the hostile receiver's behaviour under test, not a wait for an event.
                usleep(1_000_000)
            }
        }
        let healthy = try FakeUpstream(concurrent: true) { _ in
            .init(status: 204, contentType: "text/plain", body: Data())
        }
        defer { healthy.stop() }
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        var ids: [Int64] = []
        for port in [hanging.port, trickling.port, healthy.port] {
            let settings = try JSONSerialization.data(withJSONObject: ["url": "http://127.0.0.1:\(port)/topic"])
            let channel = try await store.addChannel(
                NewChannel(
                    kind: "ntfy", destination: settings, numbers: nil, kinds: [.changed], language: "ja",
                    quietHours: nil),
                owner: .local, now: Date())
            ids.append(channel.id)
        }
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: "靴", owner: .local, webhook: nil, now: Date())
        let watch = try #require(try await store.watch(number, owner: .local))
        let shipment = try JSONEncoder().encode(Self.shipment(number, "輸送中", .inTransit))
        let lines = LogLines()
        let channels = ChannelDeliverer(
            store: store, sender: CurlDeliverySender(allowPrivate: true, timeout: 120), clock: SystemClock(),
            vapid: nil, publicURL: nil, log: ServerLogging.events(format: .text) { lines.add($0) })
        let doorbell = Doorbell()
        let outbox = OutboxDeliverer(lanes: [channels], clock: SystemClock())
        let running = Task { await outbox.run(tick: .seconds(1), doorbell: doorbell) }
        defer { running.cancel() }
        let healthyLine = "channel id=\(ids[2]) kind=ntfy announcement=changed"
        // The first announcement starts all three; the ones measured go out while both slow ones are held.
        _ = try await store.announce(.changed, watch: watch, shipment: shipment, at: Date())
        doorbell.ring()
        let bothHeld = await onOwnThread {
            connected.wait(timeout: .now() + 120) == .success && connected.wait(timeout: .now() + 120) == .success
        }
        #expect(bothHeld, "the slow receivers were not reached")
        #expect(await lines.wait(timeout: 120) { $0.contains { $0.hasPrefix(healthyLine) && $0.hasSuffix("result=delivered") } })
        for round in 2...6 {
            _ = try await store.announce(.changed, watch: watch, shipment: shipment, at: Date())
            doorbell.ring()
            let told = await lines.wait(timeout: 120) { lines in
                lines.filter { $0.hasPrefix(healthyLine) && $0.hasSuffix("status=204 result=delivered") }.count
                    == round
            }
            #expect(told, "round \(round): the healthy channel was not told")
        }
        let records = try #require(try await store.channelDeliveries(of: ids[2], owner: .local))
        #expect(records.count == 6)
        // The slow ones were still held while all five went out: neither had finished its first attempt.
        #expect(!lines.snapshot.contains { $0.hasPrefix("channel id=\(ids[0]) ") || $0.hasPrefix("channel id=\(ids[1]) ") })
    }

    @Test("410 Gone ends the subscription: recorded on the watch, pending deliveries given up, nothing more queued")
    func gone() async throws {
        let receiver = try FakeUpstream { _ in .init(status: 410, contentType: "text/plain", body: Data()) }
        defer { receiver.stop() }
        let store = try SQLiteWatchStore(path: Self.temporaryPath())
        let number = ValidNumbers.numbers(1)[0]
        let now = Date()
        try await Self.watch(number, url: "http://127.0.0.1:\(receiver.port)/hook", store: store, now: now)
        try await store.record(Self.shipment(number, "配達中", .outForDelivery), fetchedAt: now, nextCheck: { _, _ in now })
        #expect(try await store.pendingDeliveryCount() == 2)
        let deliverer = WebhookDeliverer(
            store: store, sender: CurlDeliverySender(allowPrivate: true, timeout: 3), clock: SystemClock())
        #expect(await deliverer.deliverOnce() == 1)
        #expect(try await store.pendingDeliveryCount() == 0, "the second change is given up with the subscription")
        let watch = try await #require(try store.watch(number, owner: .local))
        #expect(watch.webhookEnded?.reason.contains("410") == true)
        #expect(watch.webhookURL != nil, "the URL stays visible beside why it ended")
        let records = try await #require(try store.deliveries(of: number, owner: .local))
        #expect(records.map(\.status) == [410])
        #expect(records[0].error?.contains("410 Gone") == true)
        try await store.record(Self.shipment(number, "配達完了", .delivered), fetchedAt: now, nextCheck: { _, _ in nil })
        #expect(try await store.pendingDeliveryCount() == 0, "a later change posts nothing to an ended webhook")
        #expect(await deliverer.deliverOnce() == 0)
        #expect(receiver.requests.count == 1)
    }
}

extension Data {
    /// The bytes over and over, without end.
    fileprivate func cycled() -> AnySequence<UInt8> {
        let bytes = Array(self)
        return AnySequence(
            sequence(state: 0) { index -> UInt8? in
                defer { index = (index + 1) % bytes.count }
                return bytes[index]
            })
    }
}

/// Log lines as they are written, and a wait for one containing a text (woken by each line).
final class LogLines: @unchecked Sendable {
    // @unchecked Sendable: `lines` is touched only under `condition`.
    private let condition = NSCondition()
    private var lines: [String] = []

    var snapshot: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    func add(_ line: String) {
        condition.lock()
        lines.append(line)
        condition.broadcast()
        condition.unlock()
    }

    func wait(for text: String, timeout: TimeInterval) async -> Bool {
        await wait(timeout: timeout) { lines in lines.contains { $0.contains(text) } }
    }

    /// Waits until `done` holds of the lines so far, or `timeout` passes. - Returns: whether it held.
    func wait(timeout: TimeInterval, until done: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                condition.lock()
                defer { condition.unlock() }
                while !done(lines) {
                    guard condition.wait(until: deadline) else {
                        return continuation.resume(returning: done(lines))
                    }
                }
                continuation.resume(returning: true)
            }
        }
    }
}

/// How long the receiver's connection was held, told from the receiver's thread once it closes.
/// What a receiver saw, from its thread.
private final class Seen: Sendable {
    let values = Mutex<[Bool]>([])
}

final class HeldConnection: Sendable {
    private let closedFlag = Atomic(false)
    private let done = DispatchSemaphore(value: 0)

    func closed() {
        closedFlag.store(true, ordering: .releasing)
        done.signal()
    }

    /// Whether the receiver has seen the close.
    var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Whether the connection closed within `seconds` (a bound that catches a hang).
    func wait(within seconds: Int) -> Bool {
        done.wait(timeout: .now() + .seconds(seconds)) == .success
    }
}
