import Foundation
import Testing
@testable import KuronekoNotify

/// A broker's URL: what is taken, and one line naming what is wrong with the rest.
@Suite("MQTT broker settings")
struct MQTTSettingsTests {
    @Test func brokerURLs() throws {
        let plain = try MQTTSettings(url: "mqtt://homeassistant.local", password: nil)
        #expect(plain.port == 1883 && !plain.tls && plain.user == nil && plain.description == "mqtt://homeassistant.local:1883")
        let tls = try MQTTSettings(url: "mqtts://kuroneko@broker.example:8884", password: "secret")
        #expect(tls.port == 8884 && tls.tls && tls.user == "kuroneko" && tls.password == "secret")
        let refused: [(String, String?, String)] = [
            ("http://broker", nil, "is not mqtt://"),
            ("mqtt://", nil, "names no host"),
            ("mqtt://u:p@broker", nil, "process list"),
            ("mqtt://broker/topic", nil, "path or query"),
            ("mqtt://broker:0", nil, "between 1 and 65535"),
            ("mqtt://broker", "secret", "a password without a user"),
        ]
        for (url, password, words) in refused {
            #expect(throws: MQTTSettingsError.self) { try MQTTSettings(url: url, password: password) }
            do {
                _ = try MQTTSettings(url: url, password: password)
            } catch {
                #expect(error.description.contains(words), "\(url): \(error)")
            }
        }
    }
}
