import Foundation
import KuronekoNotify

/// What the broker keeps from Kuroneko, and the messages that bring it to what should be: a pure state machine
/// (events in, messages out) run by ``HomeAssistantService``. Every message is retained, so Home Assistant finds
/// the entities whenever it starts; an entity that should be no more is deleted with an empty retained config
/// (then its state and attributes), so nothing lingers.
struct HomeAssistantBridge {
    let topics: HomeAssistantTopics
    /// What the broker holds from us (as far as this server knows), by topic.
    private(set) var held: [String: Data] = [:]

    init(topics: HomeAssistantTopics) {
        self.topics = topics
    }

    /// A new connection or Home Assistant's birth: everything that should be, and the deletion of what was held
    /// and should not be (the broker may have forgotten nothing, or everything).
    mutating func announce(_ desired: [String: Data]) -> [MQTTMessage] {
        let gone = Set(held.keys).subtracting(desired.keys)
        held = desired
        return Self.ordered(desired) + deletions(gone)
    }

    /// The list changed: what differs, and the deletion of what went.
    mutating func update(_ desired: [String: Data]) -> [MQTTMessage] {
        let changed = desired.filter { held[$0.key] != $0.value }
        let gone = Set(held.keys).subtracting(desired.keys)
        held = desired
        return Self.ordered(changed) + deletions(gone)
    }

    /// A retained config the broker kept (seen on subscribing): one of ours that should not be (a parcel removed
    /// while the server was stopped) is deleted; any other message is left alone.
    mutating func found(_ message: MQTTMessage, desired: [String: Data]) -> [MQTTMessage] {
        guard message.retain, !message.payload.isEmpty, desired[message.topic] == nil,
            let object = topics.object(ofConfig: message.topic)
        else { return [] }
        return deletions([message.topic, topics.state(object), topics.attributes(object)])
    }

    /// Empty retained messages for `topics`, configs first (Home Assistant removes the entity before its state goes).
    private mutating func deletions(_ gone: Set<String>) -> [MQTTMessage] {
        for topic in gone { held[topic] = nil }
        return gone.sorted { (rank($0), $0) < (rank($1), $1) }
            .map { MQTTMessage(topic: $0, payload: Data(), retain: true) }
    }

    /// Configs first, so an entity exists before its state comes; then states, in a fixed order.
    private static func ordered(_ messages: [String: Data]) -> [MQTTMessage] {
        messages.sorted { (rank($0.key), $0.key) < (rank($1.key), $1.key) }
            .map { MQTTMessage(topic: $0.key, payload: $0.value, retain: true) }
    }
}

/// Configs (0) before states and attributes (1).
private func rank(_ topic: String) -> Int { topic.hasSuffix("/config") ? 0 : 1 }
