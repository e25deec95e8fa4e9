import Foundation

/// Where an MQTT broker is and how to sign in: `mqtt://[USER@]HOST[:PORT]` (1883) or `mqtts://…` (8883, TLS with
/// the certificate checked). The password never sits in the URL: it comes from a file or the environment.
public struct MQTTSettings: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let tls: Bool
    public let user: String?
    public let password: String?
    /// Certificate authorities to trust instead of the system's (`--ca-file`).
    public var caFile: String?
    /// The client id the broker knows this server by.
    public var clientID = "kuroneko"
    /// Seconds between signs of life; the broker sends the will after one and a half of them without one.
    public var keepAlive: UInt16 = 30
    /// The longest wait for a connection, a handshake or room to write.
    public var timeout: Double = 10

    /// `mqtt://HOST:PORT`, without the user.
    public var description: String { "\(tls ? "mqtts" : "mqtt")://\(host):\(port)" }

    /// - Throws: one line naming what is wrong with `url`.
    public init(url text: String, password: String?) throws(MQTTSettingsError) {
        guard text.count <= 2_048, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "mqtt" || scheme == "mqtts"
        else { throw MQTTSettingsError(description: "\(text.prefix(100)) is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]") }
        guard let host = url.host, !host.isEmpty else { throw MQTTSettingsError(description: "\(text.prefix(100)) names no host") }
        guard url.password == nil else {
            throw MQTTSettingsError(
                description: "a password in the URL would show in the process list; give it in --mqtt-password-file or KURONEKO_MQTT_PASSWORD")
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
            throw MQTTSettingsError(description: "\(text.prefix(100)) has a path or query; the URL is only mqtt://[USER@]HOST[:PORT]")
        }
        if let port = url.port, !(1...65_535).contains(port) {
            throw MQTTSettingsError(description: "port \(port) is not between 1 and 65535")
        }
        let user = url.user.map { $0.removingPercentEncoding ?? $0 }
        guard !(user ?? "").contains(where: { $0.isNewline || $0 == "\0" }), !(password ?? "").contains("\0") else {
            throw MQTTSettingsError(description: "the user or password holds a control character")
        }
        let password = password.flatMap { $0.isEmpty ? nil : $0 }
        guard password == nil || user != nil else {
            throw MQTTSettingsError(description: "a password without a user: write the user as mqtt://USER@HOST")
        }
        self.host = host
        self.tls = scheme == "mqtts"
        self.port = url.port ?? (tls ? 8883 : 1883)
        self.user = user
        self.password = password
    }
}

public struct MQTTSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
}
