import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing
@testable import KuronekoServer

/// Home Assistant over MQTT discovery against Debian's mosquitto, started by the test: the device's configs and
/// every parcel's are retained and carry the keys Home Assistant requires; the refresh button checks the
/// parcels (once a minute at most); a finished parcel's config is deleted; a broker that restarts (forgetting
/// every retained message) and Home Assistant's birth message both bring everything back; stopping says offline.
@Suite(
    "Home Assistant over MQTT", .serialized, .timeLimit(.minutes(10)),
    .enabled(
        if: MosquittoBroker.installed || MosquittoBroker.required,
        "mosquitto is not installed (apt-get install mosquitto); scripts/test installs it"))
struct HomeAssistantMQTTTests {
    /// A list of three parcels: out for delivery, planned today 14:00–16:00, in transit planned tomorrow.
    struct Household {
        let store: SQLiteWatchStore
        let numbers: [TrackingNumber]
        let now = Date()

        /// The row of a parcel taken out for delivery at `at`.
        static func out(_ at: JapanDateTime) -> TrackingEvent {
            TrackingEvent(label: "配達中", labelEnglish: nil, code: .outForDelivery, at: at, dateText: nil, place: nil)
        }

        init() async throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ha-\(UUID().uuidString).sqlite").path
            store = try SQLiteWatchStore(path: path)
            numbers = ValidNumbers.numbers(3)
            let today = JapanDateTime(now)
            let tomorrow = JapanDateTime(now.addingTimeInterval(86_400))
            func day(_ date: JapanDateTime, _ start: String?) -> ScheduledDelivery {
                ScheduledDelivery(
                    raw: "", date: JapanDateTime(year: date.year, month: date.month, day: date.day), windowStart: start,
                    windowEnd: start == nil ? nil : "16:00")
            }
            let shipments = [
                MorningSummaryTests.shipment(numbers[0], .outForDelivery, "配達中", events: [Self.out(today)]),
                MorningSummaryTests.shipment(numbers[1], .inTransit, "輸送中", planned: day(today, "14:00")),
                MorningSummaryTests.shipment(numbers[2], .inTransit, "輸送中", planned: day(tomorrow, nil)),
            ]
            for (index, label) in ["靴", "本", nil].enumerated() {
                _ = try await store.add(
                    numbers[index], carrier: .yamato, label: label, record: nil, owner: .local, webhook: nil, now: now)
                _ = try await store.record(shipments[index], fetchedAt: now) { [now] _, _ in now.addingTimeInterval(3_600) }
            }
        }
    }

    /// The service as the server builds it, on a real clock, with what the button asked for kept.
    static func service(
        _ household: Household, port: Int, pressed: Presses = Presses(), clock: any TrackingClock = SystemClock(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws -> (HomeAssistantService, Task<Void, Never>) {
        var settings = HomeAssistantSettings()
        settings.parcelSensors = true
        var mqtt = try MQTTSettings(url: "mqtt://127.0.0.1:\(port)", password: nil)
        mqtt.clientID = "kuroneko-test-\(UUID().uuidString.prefix(8))"
        let service = HomeAssistantService(
            client: HomeAssistantService.client(mqtt, settings: settings), settings: settings, store: household.store,
            clock: clock, failures: StoreFailures(),
            refresh: { watches in pressed.list.withLock { $0.append(watches.map(\.number.digits)) } },
            log: ServerLogging.notices(format: .text, write: log))
        let running = Task { await service.run() }
        return (service, running)
    }

    /// What the refresh button asked to check, press by press.
    final class Presses: Sendable {
        let list = Mutex<[[String]]>([])
    }

    static func object(_ data: Data?) -> [String: Any] {
        data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    @Test func discoveryRetainedValidAndTheButton() async throws {
        let broker = try await MosquittoBroker()
        let household = try await Household()
        let pressed = Presses()
        let (_, running) = try Self.service(household, port: broker.port, pressed: pressed)
        let parcels = household.numbers.map { "homeassistant/sensor/kuroneko/parcel_\($0.digits)/config" }
        let fixed = ["in_transit", "arriving_today", "attention", "next_delivery"].map { "homeassistant/sensor/kuroneko/\($0)/config" }
        let configs = fixed + parcels + ["homeassistant/button/kuroneko/refresh/config"]
        // The announcement, heard (its availability comes last, after every config and state)…
        let watcher = MQTTListener(port: broker.port)
        #expect(
            try await eventually(within: .seconds(60)) {
                configs.allSatisfy { watcher.last($0) != nil } && watcher.last("kuroneko/status") == Data("online".utf8)
            })
        await watcher.stop()
        // …and a client that connects after it is told everything: it was retained.
        let listener = MQTTListener(port: broker.port)
        let kept = configs.filter { !$0.contains("/button/") }.map { $0.replacingOccurrences(of: "homeassistant/sensor/", with: "") }
            .map { $0.replacingOccurrences(of: "/config", with: "/state") } + configs + ["kuroneko/status"]
        #expect(try await eventually(within: .seconds(60)) { kept.allSatisfy { listener.retained[$0] != nil } })
        let retained = listener.retained
        for topic in configs {
            let config = Self.object(retained[topic])
            let required = topic.contains("/button/") ? "command_topic" : "state_topic"
            for key in ["name", "unique_id", "availability_topic", required] {
                #expect((config[key] as? String)?.isEmpty == false, "\(topic) lacks \(key)")
            }
            let component = topic.split(separator: "/")[1]
            let object = topic.split(separator: "/")[3]
            #expect(config["default_entity_id"] as? String == "\(component).kuroneko_\(object)")
            // Home Assistant before 2025.10 reads this one instead.
            #expect(config["object_id"] as? String == "kuroneko_\(object)")
            let device = config["device"] as? [String: Any]
            #expect((device?["identifiers"] as? [String]) == ["kuroneko"], "\(topic)")
            #expect((config["origin"] as? [String: Any])?["name"] as? String == "Kuroneko", "\(topic)")
            if let state = config["state_topic"] as? String { #expect(retained[state] != nil, "\(topic)'s state is retained") }
        }
        #expect(retained["kuroneko/status"] == Data("online".utf8))
        #expect(retained["kuroneko/in_transit/state"] == Data("3".utf8))
        #expect(retained["kuroneko/arriving_today/state"] == Data("2".utf8), "out for delivery, and planned today")
        let today = Self.object(retained["kuroneko/arriving_today/attributes"])["parcels"] as? [[String: Any]]
        #expect(Set(today?.compactMap { $0["label"] as? String } ?? []) == ["靴", "本"])
        let next = String(decoding: retained["kuroneko/next_delivery/state"] ?? Data(), as: UTF8.self)
        #expect(next.hasSuffix("T14:00:00+09:00"), "today's window start: \(next)")
        #expect(Self.object(retained["homeassistant/sensor/kuroneko/next_delivery/config"])["device_class"] as? String == "timestamp")
        let parcel = Self.object(retained["kuroneko/parcel_\(household.numbers[1].digits)/attributes"])
        #expect(parcel["label"] as? String == "本" && parcel["carrier"] as? String == "yamato")
        #expect(parcel["window_start"] as? String == "14:00" && parcel["number"] as? String == household.numbers[1].digits)
        #expect(retained["kuroneko/parcel_\(household.numbers[0].digits)/state"] == Data("配達中".utf8))

        // The button checks the list's parcels; a second press within the minute is ignored. Home Assistant's birth,
        // sent after both presses on the same connection, is handled after them: when its announcement is heard,
        // both presses have been read.
        try await listener.publish("kuroneko/refresh/press", "PRESS")
        try await listener.publish("kuroneko/refresh/press", "PRESS")
        let before = listener.messages.filter { $0.topic == configs[0] }.count
        try await listener.publish("homeassistant/status", "online")
        #expect(try await eventually(within: .seconds(30)) { listener.messages.filter { $0.topic == configs[0] }.count > before })
        #expect(try await eventually(within: .seconds(30)) { pressed.list.withLock { !$0.isEmpty } })
        #expect(pressed.list.withLock { $0.count == 1 && Set($0[0]) == Set(household.numbers.map(\.digits)) })

        running.cancel()
        await running.value
        #expect(try await eventually(within: .seconds(30)) { listener.last("kuroneko/status") == Data("offline".utf8) })
        await listener.stop()
        await broker.stop()
    }

    /// A parcel's change reaches its state topic (the service reads the list's change feed at each tick); a
    /// finished parcel's topics are cleared.
    @Test func aChangeWithinASecondAndAFinishedParcelCleared() async throws {
        let broker = try await MosquittoBroker()
        let household = try await Household()
        let (_, running) = try Self.service(household, port: broker.port)
        let listener = MQTTListener(port: broker.port)
        let number = household.numbers[2]
        let state = "kuroneko/parcel_\(number.digits)/state"
        #expect(try await eventually(within: .seconds(30)) { listener.last(state) == Data("輸送中".utf8) })

        _ = try await household.store.record(
            MorningSummaryTests.shipment(number, .outForDelivery, "配達中", events: [Household.out(JapanDateTime(Date()))]),
            fetchedAt: Date()) { _, _ in Date().addingTimeInterval(600) }
        #expect(try await eventually(within: .seconds(120)) { listener.last(state) == Data("配達中".utf8) })
        #expect(listener.last("kuroneko/arriving_today/state") == Data("3".utf8))

        // Delivered and finished: its sensor shows 配達完了 for the rest of the day (counted in transit no more)…
        _ = try await household.store.record(
            MorningSummaryTests.shipment(number, .delivered, "配達完了"), fetchedAt: Date()) { _, _ in nil }
        let config = "homeassistant/sensor/kuroneko/parcel_\(number.digits)/config"
        #expect(try await eventually(within: .seconds(30)) { listener.last(state) == Data("配達完了".utf8) })
        #expect(listener.last("kuroneko/in_transit/state") == Data("2".utf8))
        #expect(listener.last(config).map { !$0.isEmpty } == true, "its entity stays")
        let late = MQTTListener(port: broker.port)
        #expect(try await eventually(within: .seconds(30)) { late.retained["kuroneko/in_transit/state"] == Data("2".utf8) })
        #expect(late.retained[state] == Data("配達完了".utf8))
        // …and removed from the list, it goes at once: its config deleted (an empty retained message), then its state.
        #expect(try await household.store.remove(number, owner: .local))
        #expect(try await eventually(within: .seconds(120)) { listener.last(config) == Data() && listener.last(state) == Data() })
        running.cancel()
        await running.value
        await late.stop()
        await listener.stop()
        await broker.stop()
    }

    @Test func aBrokerRestartBringsEverythingBackAndStaleConfigsGo() async throws {
        let broker = try await MosquittoBroker()
        let household = try await Household()
        // A config kept from an earlier run for a parcel no longer in the list: deleted when the service sees it.
        let stale = "homeassistant/sensor/kuroneko/parcel_999999999999/config"
        let seeder = MQTTListener(port: broker.port)
        #expect(try await eventually(within: .seconds(30)) { seeder.client.publish([MQTTMessage(topic: stale, text: "{}", retain: true)]) })
        #expect(try await eventually(within: .seconds(30)) { seeder.last(stale) == Data("{}".utf8) })
        let (_, running) = try Self.service(household, port: broker.port)
        let config = "homeassistant/sensor/kuroneko/parcel_\(household.numbers[0].digits)/config"
        #expect(try await eventually(within: .seconds(30)) { seeder.last(config) != nil && seeder.last(stale) == Data() })
        await seeder.stop()
        // Stopped and started on the same port, without persistence: it keeps nothing until Kuroneko comes back.
        await broker.stop()
        try await broker.start()
        let after = MQTTListener(port: broker.port)
        #expect(
            try await eventually(within: .seconds(60)) {
                after.last(config) != nil && after.last("kuroneko/status") == Data("online".utf8)
            })
        // Announced again, and kept: a client that comes later is told it.
        let late = MQTTListener(port: broker.port)
        #expect(try await eventually(within: .seconds(30)) { late.retained[config] != nil })
        #expect(late.retained[stale] == nil)
        running.cancel()
        await running.value
        await late.stop()
        await after.stop()
        await broker.stop()
    }

    /// The first event of a client that is started now, waited for at most a minute.
    static func firstEvent(_ settings: MQTTSettings) async throws -> MQTTEvent? {
        let client = MQTTClient(settings: settings, subscriptions: [], will: nil)
        let first = FirstEvent()
        let reader = Task {
            for await event in client.events {
                first.event.withLock { $0 = $0 ?? event }
            }
        }
        client.start()
        _ = try await eventually(within: .seconds(60)) { first.event.withLock { $0 != nil } }
        await client.stop(last: [])
        reader.cancel()
        return first.event.withLock { $0 }
    }

    final class FirstEvent: Sendable {
        let event = Mutex<MQTTEvent?>(nil)
    }

    /// mqtts:// with a user and password: connected with the broker's authority and the right password; refused,
    /// saying why, with a wrong password, with the system's authorities (which never signed this certificate), and
    /// in plain MQTT on the TLS port.
    @Test func tlsAndPassword() async throws {
        let broker = try await MosquittoBroker(tls: true, user: ("kuroneko", "s3cret-pass"))
        var good = try MQTTSettings(url: "mqtts://kuroneko@127.0.0.1:\(broker.port)", password: "s3cret-pass")
        good.caFile = broker.caFile
        #expect(try await Self.firstEvent(good) == .connected)
        var wrong = try MQTTSettings(url: "mqtts://kuroneko@127.0.0.1:\(broker.port)", password: "guess")
        wrong.caFile = broker.caFile
        let refused = try await Self.firstEvent(wrong)
        #expect(refused.map { "\($0)".contains("not authorised") || "\($0)".contains("password is wrong") } == true, "\(String(describing: refused))")
        let untrusted = try await Self.firstEvent(try MQTTSettings(url: "mqtts://kuroneko@127.0.0.1:\(broker.port)", password: "s3cret-pass"))
        #expect(untrusted.map { "\($0)".contains("certificate is refused") } == true, "\(String(describing: untrusted))")
        let plain = try await Self.firstEvent(try MQTTSettings(url: "mqtt://kuroneko@127.0.0.1:\(broker.port)", password: "s3cret-pass"))
        if case .disconnected? = plain {} else { Issue.record("plain MQTT on the TLS port: \(String(describing: plain))") }
        await broker.stop()
    }
}
