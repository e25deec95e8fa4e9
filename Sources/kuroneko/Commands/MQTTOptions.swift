import Foundation
import KuronekoNotify
import KuronekoServer

/// `serve --mqtt …`: Home Assistant over MQTT discovery.
enum MQTTOptions {
    static let options: [OptionSpec] = [
        .value(
            "--mqtt", "URL", environment: "KURONEKO_MQTT",
            "an MQTT broker to show today's list in Home Assistant (MQTT discovery): mqtt://[USER@]HOST[:PORT] "
                + "(1883) or mqtts://… (8883, TLS)"),
        .value(
            "--mqtt-password-file", "FILE", environment: "KURONEKO_MQTT_PASSWORD_FILE",
            "the file holding the broker's password (its first line); else KURONEKO_MQTT_PASSWORD, never the "
                + "command line"),
        .flag(
            "--mqtt-parcels", environment: "KURONEKO_MQTT_PARCELS",
            "also one sensor per active parcel (at most 200), removed when the parcel is finished or removed"),
        .value(
            "--mqtt-discovery-prefix", "PREFIX", default: "homeassistant", environment: "KURONEKO_MQTT_DISCOVERY_PREFIX",
            "Home Assistant's discovery prefix (letters, digits, _ and -)"),
        .value(
            "--mqtt-topic", "NAME", default: "kuroneko", environment: "KURONEKO_MQTT_TOPIC",
            "the topic Kuroneko's states go under, and its device's id (letters, digits, _ and -)"),
        .value(
            "--mqtt-language", "LANG", .choice(["ja", "en"]), default: "ja", environment: "KURONEKO_MQTT_LANGUAGE",
            "the language of the entities' names and statuses"),
    ]

    /// The broker, or `nil` without `--mqtt`; each problem one line naming the option.
    static func settings(_ arguments: ArgumentList, caFile: String?) throws(CommandFailure) -> MQTTSettings? {
        guard let text = arguments.text(.mqtt), !text.isEmpty else { return nil }
        var password = arguments.environment["KURONEKO_MQTT_PASSWORD"]
        if let path = arguments.text(.mqttPasswordFile), !path.isEmpty {
            password = try SecretFile.firstLine(path, option: "--mqtt-password-file")
        }
        do {
            var settings = try MQTTSettings(url: text, password: password)
            settings.caFile = caFile
            return settings
        } catch {
            throw .usage("serve: --mqtt: \(error)")
        }
    }

    /// What Home Assistant is shown.
    static func homeAssistant(_ arguments: ArgumentList) throws(CommandFailure) -> HomeAssistantSettings {
        var settings = HomeAssistantSettings()
        settings.parcelSensors = try arguments.flagOrVariable(.mqttParcels)
        settings.discoveryPrefix = try level(arguments, .mqttDiscoveryPrefix) ?? settings.discoveryPrefix
        settings.baseTopic = try level(arguments, .mqttTopic) ?? settings.baseTopic
        if try arguments.choice(.mqttLanguage) == "en" { settings.language = .english }
        return settings
    }

    private static func level(_ arguments: ArgumentList, _ key: OptionKey<TextOption>) throws(CommandFailure) -> String? {
        guard let text = arguments.text(key) else { return nil }
        guard let level = HomeAssistantSettings.checkedLevel(text) else {
            throw .usage("serve: \(key.name) \"\(text.prefix(80))\" is not 1–64 letters, digits, _ or -")
        }
        return level
    }
}
