import Foundation

/// One message on an MQTT broker: a topic, its bytes, and whether the broker keeps it for later subscribers.
/// An empty retained payload deletes what the broker kept on the topic.
public struct MQTTMessage: Sendable, Hashable {
    public let topic: String
    public let payload: Data
    public let retain: Bool

    public init(topic: String, payload: Data, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }

    public init(topic: String, text: String, retain: Bool) {
        self.init(topic: topic, payload: Data(text.utf8), retain: retain)
    }
}
