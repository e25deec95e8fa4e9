import Foundation
import Logging
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Keeps Home Assistant's view of one list true over MQTT discovery (`serve --mqtt`): on every connection and
/// every birth message of Home Assistant it announces the device's entities (``HomeAssistantEntities``); every
/// `tick` it asks the list's change feed whether anything changed (and at least every minute, for "today"
/// moves at midnight) and publishes what differs (``HomeAssistantBridge``); the refresh button checks the
/// list's parcels. The connection itself is ``MQTTClient``'s, off the cooperative pool; stopping publishes
/// `offline` (a server that dies leaves it to the will).
struct HomeAssistantService: BackgroundService {
    let name = "home-assistant"
    let client: MQTTClient
    let settings: HomeAssistantSettings
    let store: any WatchStore
    let clock: any TrackingClock
    let failures: StoreFailures
    /// How often the change feed is read.
    var tick: Duration = .milliseconds(250)
    /// Checks parcels now (the refresh button).
    let refresh: @Sendable ([Watch]) async -> Void
    /// The operator's lines: connected, lost (said once per reason), the refresh button.
    let log: Logger

    /// The most parcels one press of the button checks (those checked longest ago), and how long after a press
    /// another is ignored.
    static let refreshLimit = 200
    static let refreshPause: Duration = .seconds(60)
    /// The most watches of the list read.
    static let watchesRead = 10_000
    /// The most changes read at a tick (to see what was delivered; more are counted as a change all the same).
    static let changesRead = 200
    /// The shortest time between two whole announcements for Home Assistant's birth messages (a broker or a
    /// client that floods `homeassistant/status` gets one every 5 s, not one each).
    static let announcePause: Duration = .seconds(5)

    var topics: HomeAssistantTopics { HomeAssistantTopics(prefix: settings.discoveryPrefix, base: settings.baseTopic) }

    /// The client for these settings: the will says `offline`; it hears Home Assistant's birth, the button, and
    /// the configs the broker kept.
    static func client(_ mqtt: MQTTSettings, settings: HomeAssistantSettings) -> MQTTClient {
        let topics = HomeAssistantTopics(prefix: settings.discoveryPrefix, base: settings.baseTopic)
        return MQTTClient(
            settings: mqtt, subscriptions: [topics.birth, topics.refreshCommand, topics.configFilter],
            will: MQTTMessage(topic: topics.availability, text: "offline", retain: true))
    }

    private enum Input: Sendable {
        case mqtt(MQTTEvent)
        case tick
    }

    func run() async {
        // Unbounded in form only: the client's events are bounded by its own stream, and at most one tick waits.
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let tickWaiting = Atomic(false)
        client.start()
        let forward = Task {
            for await event in client.events { feed.yield(.mqtt(event)) }
        }
        let ticker = Task { [clock, tick] in
            while !Task.isCancelled {
                try? await clock.sleep(until: clock.uptime + tick)
                if !tickWaiting.exchange(true, ordering: .relaxed) { feed.yield(.tick) }
            }
        }
        var bridge = HomeAssistantBridge(topics: topics)
        var desired: [String: Data] = [:]
        var cursor: Int64?
        var delivered: [TrackingNumber: Watch] = [:]
        var lastRead: Duration?
        var lastPress: Duration?
        var connected = false
        // A failure is logged when it first happens and when its reason changes, not at every attempt.
        var notes = MQTTConnectionNotes()
        // Home Assistant's birth is answered with the whole announcement at most every ``announcePause``; one
        // that comes sooner is answered once, at the first tick after it.
        var lastAnnounce: Duration?
        var announceDue = false
        let seconds = { (uptime: Duration) in uptime / .seconds(1) }
        for await input in inputs {
            if Task.isCancelled { break }
            switch input {
            case .mqtt(.connected):
                connected = true
                if let line = notes.connected(at: seconds(clock.uptime)) { log.info("home assistant: \(line)") }
                if let read = await read(delivered: &delivered) {
                    desired = read
                    lastRead = clock.uptime
                }
                client.publish(bridge.announce(desired))
                lastAnnounce = clock.uptime
                announceDue = false
            case .mqtt(.disconnected(let reason, _)):
                if let line = notes.disconnected(reason, at: seconds(clock.uptime)) {
                    log.warning("home assistant: \(line); trying again (every 30 s at most)")
                }
                connected = false
            case .mqtt(.message(let message)) where message.topic == topics.birth:
                guard String(decoding: message.payload, as: UTF8.self) == "online" else { continue }
                if let lastAnnounce, clock.uptime - lastAnnounce < Self.announcePause {
                    announceDue = true
                } else {
                    client.publish(bridge.announce(desired))
                    lastAnnounce = clock.uptime
                }
            case .mqtt(.message(let message)) where message.topic == topics.refreshCommand:
                guard lastPress.map({ clock.uptime - $0 >= Self.refreshPause }) ?? true else { continue }
                lastPress = clock.uptime
                let watches: [Watch]
                do {
                    watches = try await store.watches(owner: settings.owner, filter: .active, after: nil, limit: Self.watchesRead)
                } catch {
                    failures.report(.homeAssistant, error)
                    continue
                }
                let due = watches.sorted { ($0.checkedAt ?? .distantPast) < ($1.checkedAt ?? .distantPast) }
                    .prefix(Self.refreshLimit)
                log.info("home assistant: the refresh button checks parcels", metadata: ["parcels": .stringConvertible(due.count)])
                let refresh = self.refresh
                Task { await refresh(Array(due)) }
            case .mqtt(.message(let message)):
                // Only against a list read: a store that failed at the connection must not make every config stale.
                if lastRead != nil { client.publish(bridge.found(message, desired: desired)) }
            case .tick:
                tickWaiting.store(false, ordering: .relaxed)
                guard connected else { continue }
                if announceDue, lastAnnounce.map({ clock.uptime - $0 >= Self.announcePause }) ?? true {
                    client.publish(bridge.announce(desired))
                    lastAnnounce = clock.uptime
                    announceDue = false
                }
                let stale = lastRead.map { clock.uptime - $0 >= .seconds(60) } ?? true
                var due = stale
                if !due { due = await changed(since: &cursor, delivered: &delivered) }
                guard due else { continue }
                if let read = await read(delivered: &delivered) {
                    desired = read
                    lastRead = clock.uptime
                    client.publish(bridge.update(desired))
                }
            }
        }
        forward.cancel()
        ticker.cancel()
        await client.stop(last: [MQTTMessage(topic: topics.availability, text: "offline", retain: true)])
    }

    /// Whether the list changed after `cursor` (moved on); the first call only takes the cursor and says yes.
    /// A parcel among the changes that was delivered today is kept in `delivered` (at most
    /// ``HomeAssistantSettings/parcelSensorLimit``), so its sensor shows 配達完了 until the day ends.
    private func changed(since cursor: inout Int64?, delivered: inout [TrackingNumber: Watch]) async -> Bool {
        do {
            let changes = try await store.changes(owner: settings.owner, since: cursor, limit: Self.changesRead, now: clock.now)
            defer { cursor = changes.cursor }
            let today = JapanDateTime(clock.now)
            for watch in changes.watches {
                guard HomeAssistantEntities.deliveredToday(watch, today: today) else { continue }
                if delivered.count < HomeAssistantSettings.parcelSensorLimit || delivered[watch.number] != nil {
                    delivered[watch.number] = watch
                }
            }
            return cursor == nil || !changes.watches.isEmpty || !changes.removed.isEmpty
        } catch {
            cursor = nil
            return true
        }
    }

    /// What the entities should be now, or `nil` when the list cannot be read (nothing is changed then).
    /// Parcels delivered on an earlier day are forgotten from `delivered` here.
    private func read(delivered: inout [TrackingNumber: Watch]) async -> [String: Data]? {
        let today = JapanDateTime(clock.now)
        do {
            // Read again: one removed from the list since, or no longer delivered today, goes.
            let kept = delivered.isEmpty ? [] : try await store.watches(owner: settings.owner, ids: delivered.values.map(\.id))
            delivered = [:]
            for watch in kept where HomeAssistantEntities.deliveredToday(watch, today: today) { delivered[watch.number] = watch }
            let watches = try await store.watches(owner: settings.owner, filter: .active, after: nil, limit: Self.watchesRead)
            return HomeAssistantEntities.messages(
                watches, delivered: Array(delivered.values), now: clock.now, settings: settings, version: KuronekoVersion.version)
        } catch {
            failures.report(.homeAssistant, error)
            return nil
        }
    }
}
