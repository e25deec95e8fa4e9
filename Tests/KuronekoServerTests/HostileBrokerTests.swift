import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoTestSupport
import Synchronization
import Testing
@testable import KuronekoServer

/// A broker that is not one: it accepts the connection, then sends a message over 256 KiB, or floods Home
/// Assistant's birth topic. The client on libmosquitto ends a connection for the first, and backs off
/// (1 s, 2 s, 4 s… to 30 s) with the reason said once; the flood costs one announcement per pause on one
/// connection.
@Suite("MQTT: a hostile broker", .serialized, .timeLimit(.minutes(3)))
struct HostileBrokerTests {
    /// CONNACK, accepted (MQTT 3.1.1, 3.2).
    static let accepted = Data([0x20, 0x02, 0x00, 0x00])

    /// A PUBLISH at QoS 0 of `payload` bytes on `topic`, with its remaining length as MQTT encodes it.
    static func publish(_ topic: String, _ payload: Data) -> Data {
        var body = Data([UInt8(topic.utf8.count >> 8), UInt8(topic.utf8.count & 0xFF)]) + Data(topic.utf8)
        body += payload
        var packet = Data([0x30])
        var length = body.count
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            packet.append(byte)
        } while length > 0
        return packet + body
    }

    /// Reads what the client sends until it closes (at most a minute), so the connection ends when the client ends it.
    static func drain(_ socket: Int32) {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while recv(socket, &buffer, buffer.count, 0) > 0 {}
    }

    /// Waits for CONNECT's first bytes, as a broker would.
    static func awaitConnect(_ socket: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        return recv(socket, &buffer, buffer.count, 0) > 0 && buffer[0] == 0x10
    }

    @Test("a message over 256 KiB ends each connection: the reason said once, the waits 1, 2, 4 s")
    func oversizeMessages() async throws {
        let oversize = Self.publish("homeassistant/status", Data(repeating: 0x61, count: 300 << 10))
        let broker = try RawUpstream(readsRequest: false) { socket in
            guard Self.awaitConnect(socket) else { return }
            RawUpstream.write(socket, Self.accepted + oversize)
            Self.drain(socket)
        }
        let household = try await HomeAssistantMQTTTests.Household()
        let lines = LogLines()
        let settings = try MQTTSettings(url: "mqtt://127.0.0.1:\(broker.port)", password: nil)
        let client = MQTTClient(settings: settings, subscriptions: ["homeassistant/status"], will: nil)
        let events = Events()
        let reader = Task { for await event in client.events { events.list.withLock { $0.append(event) } } }
        client.start()
        #expect(try await eventually(within: .seconds(60)) { events.losses.count >= 3 })
        await client.stop(last: [])
        reader.cancel()
        let losses = events.losses.prefix(3)
        #expect(losses.map(\.1) == [1, 2, 4], "\(losses)")
        #expect(Set(losses.map(\.0)) == ["the broker sent a message larger than 256 KiB"], "\(losses)")
        #expect(!events.list.withLock { $0.contains { if case .message = $0 { true } else { false } } }, "nothing of it was taken")

        // The bridge's log, on the same broker: one line for the reason however often it comes.
        let (_, running) = try HomeAssistantMQTTTests.service(household, port: broker.port, log: { lines.append($0) })
        let before = broker.answeredCount
        // The reason is said once the bridge has taken the first loss from its client (its own queue, behind the
        // broker's count), and not again for the losses after it.
        #expect(
            try await eventually(within: .seconds(60)) {
                broker.answeredCount >= before + 3 && lines.all.contains { $0.contains("larger than 256 KiB") }
            }, "\(lines.all)")
        running.cancel()
        await running.value
        let said = lines.all.filter { $0.contains("larger than 256 KiB") }
        #expect(said.count == 1, "\(lines.all)")
    }

    @Test("20,000 birth messages on one connection: it stays up, and the bridge announces once, then once per pause")
    func birthFlood() async throws {
        let births = Data((0..<20_000).map { _ in Self.publish("homeassistant/status", Data("online".utf8)) }.joined())
        let heard = Mutex(Data())
        let broker = try RawUpstream(readsRequest: false) { socket in
            guard Self.awaitConnect(socket) else { return }
            RawUpstream.write(socket, Self.accepted + births)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            while case let count = recv(socket, &buffer, buffer.count, 0), count > 0 {
                heard.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
        }
        let household = try await HomeAssistantMQTTTests.Household()
        let lines = LogLines()
        let clock = ManualClock()
        let (_, running) = try HomeAssistantMQTTTests.service(household, port: broker.port, clock: clock, log: { lines.append($0) })
        // The device's config is published at each announcement: counted in what the client wrote.
        let config = Data("homeassistant/sensor/kuroneko/in_transit/config".utf8)
        func announcements() -> Int {
            heard.withLock { data in
                var count = 0
                var from = data.startIndex
                while let found = data.range(of: config, in: from..<data.endIndex) {
                    count += 1
                    from = found.upperBound
                }
                return count
            }
        }
        #expect(try await eventually(within: .seconds(60)) { announcements() >= 1 })
        // Every birth read (the client keeps reading them); none brings an announcement within the pause.
        let first = announcements()
        #expect(first == 1, "the announcement at connecting, none for the births within the pause")
        clock.advance(by: HomeAssistantService.announcePause)
        #expect(try await eventually(within: .seconds(60)) { announcements() == first + 1 })
        running.cancel()
        await running.value
        #expect(broker.answeredCount <= 1, "one connection")
        #expect(lines.all.filter { $0.contains("connected to the broker") }.count == 1, "\(lines.all)")
        #expect(!lines.all.contains { $0.contains("trying again") || $0.contains("lost") }, "\(lines.all)")
    }

    @Test("a reader that falls behind a flood: the connection's opening is kept, at most 1,000 messages wait")
    func aReaderBehind() async throws {
        let births = Data((0..<20_000).map { _ in Self.publish("homeassistant/status", Data("online".utf8)) }.joined())
        let broker = try RawUpstream(readsRequest: false) { socket in
            guard Self.awaitConnect(socket) else { return }
            RawUpstream.write(socket, Self.accepted + births)
            Self.drain(socket)
        }
        let settings = try MQTTSettings(url: "mqtt://127.0.0.1:\(broker.port)", password: nil)
        let client = MQTTClient(settings: settings, subscriptions: ["homeassistant/status"], will: nil)
        client.start()
        // Nothing read yet: every birth past the first 1,000 is dropped, none waits unread beyond them.
        #expect(try await eventually(within: .seconds(60)) { client.messagesDropped == 19_000 })
        let events = Events()
        let reader = Task { for await event in client.events { events.list.withLock { $0.append(event) } } }
        #expect(try await eventually(within: .seconds(60)) { events.list.withLock { $0.count } >= 1_001 })
        let heard = events.list.withLock { $0 }
        #expect(heard.first == .connected, "the connection's opening first, never dropped")
        #expect(heard.dropFirst().prefix(1_000).allSatisfy { if case .message = $0 { true } else { false } })
        await client.stop(last: [])
        reader.cancel()
        #expect(events.list.withLock { $0.count } == 1_001, "no more than 1,000 messages waited")
    }

    final class Events: Sendable {
        let list = Mutex<[MQTTEvent]>([])
        var losses: [(String, Double)] {
            list.withLock { events in
                events.compactMap { if case .disconnected(let reason, let wait) = $0 { (reason.replacingOccurrences(of: #"^mqtt://[^ ]+: "#, with: "", options: .regularExpression), wait) } else { nil } }
            }
        }
    }
}
