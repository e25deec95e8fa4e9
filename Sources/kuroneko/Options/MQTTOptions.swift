import ArgumentParser
import Foundation
import KuronekoNotify
import KuronekoServer

extension Setting {
    static let mqtt = Setting("--mqtt", variable: "KURONEKO_MQTT")
    static let mqttPasswordFile = Setting("--mqtt-password-file", variable: "KURONEKO_MQTT_PASSWORD_FILE")
    static let mqttParcels = Setting("--mqtt-parcels", variable: "KURONEKO_MQTT_PARCELS")
    static let mqttDiscoveryPrefix = Setting(
        "--mqtt-discovery-prefix", variable: "KURONEKO_MQTT_DISCOVERY_PREFIX",
        default: HomeAssistantSettings().discoveryPrefix)
    static let mqttTopic = Setting("--mqtt-topic", variable: "KURONEKO_MQTT_TOPIC", default: HomeAssistantSettings().baseTopic)
    static let mqttLanguage = Setting("--mqtt-language", variable: "KURONEKO_MQTT_LANGUAGE", default: "ja")
}

/// `serve --mqtt …`: Home Assistant over MQTT discovery.
struct MQTTOptions: ParsableArguments {
    @Option(
        help: Setting.mqtt.help(
            "an MQTT broker to show today's list in Home Assistant (MQTT discovery): mqtt://[USER@]HOST[:PORT] "
                + "(1883) or mqtts://… (8883, TLS)", value: "URL"))
    var mqtt: String?

    @Option(
        help: Setting.mqttPasswordFile.help(
            "the file holding the broker's password (its first line); else KURONEKO_MQTT_PASSWORD, never the "
                + "command line", value: "FILE"))
    var mqttPasswordFile: String?

    @Flag(
        help: Setting.mqttParcels.help(
            "also one sensor per active parcel (at most 200), removed when the parcel is finished or removed"))
    var mqttParcels = false

    @Option(
        help: Setting.mqttDiscoveryPrefix.help(
            "Home Assistant's discovery prefix (letters, digits, _ and -)", value: "PREFIX"))
    var mqttDiscoveryPrefix: String?

    @Option(
        help: Setting.mqttTopic.help(
            "the topic Kuroneko's states go under, and its device's id (letters, digits, _ and -)", value: "NAME"))
    var mqttTopic: String?

    @Option(help: Setting.mqttLanguage.help("the language of the entities' names and statuses", value: "LANG"))
    var mqttLanguage: Language?

    /// The broker, or `nil` without `--mqtt`; each problem one line naming the option.
    func settings(_ reader: OptionReader, caFile: String?) throws(CommandFailure) -> MQTTSettings? {
        guard let text = reader.text(mqtt, .mqtt), !text.isEmpty else { return nil }
        var password = reader.environment["KURONEKO_MQTT_PASSWORD"]
        if let path = reader.text(mqttPasswordFile, .mqttPasswordFile), !path.isEmpty {
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
    func homeAssistant(_ reader: OptionReader) throws(CommandFailure) -> HomeAssistantSettings {
        var settings = HomeAssistantSettings()
        settings.parcelSensors = try reader.flag(mqttParcels, .mqttParcels)
        settings.discoveryPrefix = try level(reader, mqttDiscoveryPrefix, .mqttDiscoveryPrefix) ?? settings.discoveryPrefix
        settings.baseTopic = try level(reader, mqttTopic, .mqttTopic) ?? settings.baseTopic
        if try reader.choice(mqttLanguage, .mqttLanguage) == .english { settings.language = .english }
        return settings
    }

    private func level(_ reader: OptionReader, _ given: String?, _ setting: Setting) throws(CommandFailure) -> String? {
        guard let text = reader.text(given, setting) else { return nil }
        guard let level = HomeAssistantSettings.checkedLevel(text) else {
            throw .usage("serve: \(setting.name) \"\(text.prefix(80))\" is not 1–64 letters, digits, _ or -")
        }
        return level
    }
}
