import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing
@testable import KuronekoServer

/// The bridge backs off whatever ends its connections, and says a repeated reason once: the waits and the lines
/// are pure (events in, answers out), and a flood of Home Assistant's birth messages is answered with one
/// announcement per pause, on one connection.
@Suite("MQTT: backing off, saying it once", .timeLimit(.minutes(5)))
struct MQTTBackOffTests {
    @Test("a connection the broker ends soon after it opens counts as a failure: the waits grow to 30 s")
    func waitsGrowWhateverTheCause() {
        var reconnect = MQTTReconnect()
        // Refused outright, then opened and ended within a second, again and again (an oversize packet kept).
        let waits = [nil, 0.4, 0.2, 0.3, 0.5, 0.1, 0.2, 0.4].map { reconnect.ended(lasted: $0) }
        #expect(waits == [1, 2, 4, 8, 16, 30, 30, 30])
        // A connection that stayed up a minute was a good one: the next wait is 1 s again.
        #expect(reconnect.ended(lasted: 61) == 1)
        #expect(reconnect.ended(lasted: nil) == 2)
    }

    @Test("the same reason is said once across short connections; again after a connection that lasted")
    func saidOnce() {
        var notes = MQTTConnectionNotes()
        var lines: [String] = []
        var now = 0.0
        func connected() { if let line = notes.connected(at: now) { lines.append(line) } }
        func lost(_ reason: String) { if let line = notes.disconnected(reason, at: now) { lines.append(line) } }
        connected()
        for _ in 0..<20 {
            now += 1
            lost("the broker sent a packet larger than 256 KiB")
            now += 1
            connected()
        }
        #expect(lines == ["connected to the broker", "the broker sent a packet larger than 256 KiB", "connected to the broker"])
        now += 1
        lost("127.0.0.1:1883 refused the connection")
        #expect(lines.last == "127.0.0.1:1883 refused the connection", "a new reason is said")
        connected()
        now += 120
        lost("127.0.0.1:1883 refused the connection")
        #expect(lines.suffix(2) == ["connected to the broker", "127.0.0.1:1883 refused the connection"],
            "after a connection that lasted, the same reason is news again")
    }

    @Test(
        "500 birth messages at once: one connection, one announcement now and one after the pause",
        .enabled(if: MosquittoBroker.installed || MosquittoBroker.required, "mosquitto is not installed"))
    func birthFlood() async throws {
        let broker = try await MosquittoBroker()
        let household = try await HomeAssistantMQTTTests.Household()
        let clock = ManualClock()
        let lines = LogLines()
        let pressed = HomeAssistantMQTTTests.Presses()
        let (_, running) = try HomeAssistantMQTTTests.service(
            household, port: broker.port, pressed: pressed, clock: clock, log: { lines.append($0) })
        defer { running.cancel() }
        let config = "homeassistant/sensor/kuroneko/in_transit/config"
        let flooder = MQTTListener(port: broker.port)
        #expect(try await eventually { flooder.last(config) != nil && flooder.last("kuroneko/status") == Data("online".utf8) })
        let announced = { flooder.messages.filter { $0.topic == config }.count }
        let before = announced()

        let births = Array(repeating: MQTTMessage(topic: "homeassistant/status", text: "online", retain: false), count: 500)
        #expect(try await eventually { flooder.client.publish(births) })
        // Pressed after the births on the same connection: when the press is read, so were they.
        try await flooder.publish("kuroneko/refresh/press", "PRESS")
        #expect(try await eventually { pressed.list.withLock { !$0.isEmpty } })
        #expect(announced() == before, "no announcement within the pause")
        #expect(lines.all.filter { $0.contains("connected to the broker") }.count == 1, "\(lines.all)")
        #expect(!lines.all.contains { $0.contains("trying again") }, "\(lines.all)")

        // The pause over, the next tick answers them all with one announcement.
        clock.advance(by: HomeAssistantService.announcePause)
        #expect(try await eventually { announced() == before + 1 })
        running.cancel()
        await running.value
        await flooder.stop()
        await broker.stop()
    }
}
