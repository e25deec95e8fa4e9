import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoNotify
import KuronekoStore

/// What `serve --mqtt` tells Home Assistant, and where.
public struct HomeAssistantSettings: Sendable, Hashable {
    /// Home Assistant's discovery prefix (its MQTT integration's option; `homeassistant` unless changed).
    public var discoveryPrefix = "homeassistant"
    /// Where Kuroneko's states go: `kuroneko/status`, `kuroneko/in_transit/state`, …
    public var baseTopic = "kuroneko"
    /// One sensor per active parcel besides the fixed ones (`--mqtt-parcels`).
    public var parcelSensors = false
    /// The language of statuses and names.
    public var language: AnnouncementLanguage = .japanese
    /// The list shown (today's list unless `--mqtt-list` names another).
    public var owner: WatchOwner = .local

    /// The most parcels with a sensor of their own (the first added); more are counted in the fixed sensors.
    public static let parcelSensorLimit = 200
    /// The most parcels listed in a fixed sensor's attributes (Home Assistant's recorder keeps attributes up to
    /// 16 KiB; 20 parcels stay well under it).
    public static let listedLimit = 20

    public init() {}

    /// A topic level of letters, digits, `_` and `-` only, 1–64 of them, or `nil`.
    public static func checkedLevel(_ text: String) -> String? {
        guard (1...64).contains(text.count),
            text.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
        else { return nil }
        return text
    }
}

/// The topics of one Kuroneko device: discovery configs under the prefix (node id: the base topic), states and
/// attributes under the base topic.
struct HomeAssistantTopics: Sendable, Hashable {
    let prefix: String
    let base: String

    var availability: String { "\(base)/status" }
    /// Home Assistant's birth and last-will topic.
    var birth: String { "\(prefix)/status" }
    var refreshCommand: String { "\(base)/refresh/press" }
    /// Every discovery config of this device (subscribed to learn what the broker keeps from earlier runs).
    var configFilter: String { "\(prefix)/+/\(base)/+/config" }

    func config(_ component: String, _ object: String) -> String { "\(prefix)/\(component)/\(base)/\(object)/config" }
    func state(_ object: String) -> String { "\(base)/\(object)/state" }
    func attributes(_ object: String) -> String { "\(base)/\(object)/attributes" }

    /// The object id a config topic of this device names, or `nil` for another topic.
    func object(ofConfig topic: String) -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 5, levels[0] == prefix, levels[2] == base, levels[4] == "config" else { return nil }
        return String(levels[3])
    }
}

/// Every retained message the device's entities are made of, from the list's active parcels. Pure: the
/// parcels, the time and the settings are given; the same inputs give the same bytes (keys sorted).
enum HomeAssistantEntities {
    /// - Parameter delivered: parcels seen delivered lately: one delivered today (Japan's day) keeps its sensor,
    ///   showing 配達完了, until the day ends (counted in no fixed sensor).
    static func messages(
        _ watches: [Watch], delivered: [Watch] = [], now: Date, settings: HomeAssistantSettings, version: String
    ) -> [String: Data] {
        let topics = HomeAssistantTopics(prefix: settings.discoveryPrefix, base: settings.baseTopic)
        let japanese = settings.language == .japanese
        let today = JapanDateTime(now)
        var out: [String: Data] = [topics.availability: Data("online".utf8)]
        let device: [String: Any] = [
            "identifiers": [settings.baseTopic], "name": "Kuroneko", "manufacturer": "Kuroneko",
            "model": japanese ? "荷物の追跡" : "Parcel tracking", "sw_version": version,
        ]
        func config(_ component: String, _ object: String, _ fields: [String: Any]) {
            var payload = fields
            payload["unique_id"] = "\(settings.baseTopic)_\(object)"
            // The entity id Home Assistant gives it at first sight: `default_entity_id` from 2025.10 on, `object_id`
            // before (2025.4 ignores the first and made ids of the Japanese names read as Chinese); 2026.4 ignores
            // `object_id`. Both, so the README's ids hold on either.
            payload["default_entity_id"] = "\(component).\(settings.baseTopic)_\(object)"
            payload["object_id"] = "\(settings.baseTopic)_\(object)"
            payload["availability_topic"] = topics.availability
            payload["device"] = device
            payload["origin"] = ["name": "Kuroneko", "sw_version": version]
            out[topics.config(component, object)] = json(payload)
        }
        func sensor(_ object: String, name: String, icon: String, state: String, attributes: [String: Any]?, extra: [String: Any] = [:]) {
            var fields = extra
            fields["name"] = name
            fields["icon"] = icon
            fields["state_topic"] = topics.state(object)
            if attributes != nil { fields["json_attributes_topic"] = topics.attributes(object) }
            config("sensor", object, fields)
            out[topics.state(object)] = Data(String(state.prefix(255)).utf8)
            if let attributes { out[topics.attributes(object)] = json(attributes) }
        }

        let parcels = watches.compactMap { watch -> (Watch, Shipment?, WatchFamily)? in
            let shipment = watch.latest?.shipment
            let family = WatchFamily(shipment)
            return family == .delivered || family == .returned ? nil : (watch, shipment, family)
        }
        let today_ = parcels.filter { _, shipment, _ in shipment.map { arrivesToday($0, today: today) } ?? false }
        let attention = parcels.filter { watch, _, family in
            family == .problem || family == .returning || watch.overdueAt != nil || watch.stalledAt != nil
        }
        let next = parcels.compactMap { watch, shipment, _ in
            shipment.flatMap { plannedStart($0, today: today) }.map { (watch, $0) }
        }.min { $0.1 < $1.1 }
        func listed(_ items: [(Watch, Shipment?, WatchFamily)]) -> [[String: Any]] {
            items.prefix(HomeAssistantSettings.listedLimit).map { watch, shipment, _ in
                summary(watch, shipment, japanese: japanese)
            }
        }
        let count: [String: Any] = ["state_class": "measurement", "unit_of_measurement": japanese ? "個" : "parcels"]
        sensor(
            "in_transit", name: japanese ? "配送中の荷物" : "Parcels in transit", icon: "mdi:truck-delivery",
            state: String(parcels.count), attributes: ["parcels": listed(parcels)], extra: count)
        sensor(
            "arriving_today", name: japanese ? "今日届く荷物" : "Arriving today", icon: "mdi:package-down",
            state: String(today_.count), attributes: ["parcels": listed(today_)], extra: count)
        sensor(
            "attention", name: japanese ? "確認が必要な荷物" : "Needing attention", icon: "mdi:package-variant-remove",
            state: String(attention.count), attributes: ["parcels": listed(attention)], extra: count)
        sensor(
            "next_delivery", name: japanese ? "次の配達" : "Next delivery", icon: "mdi:calendar-clock",
            state: next.map { $0.1.iso8601 } ?? "None",
            attributes: next.map { summary($0.0, $0.0.latest?.shipment, japanese: japanese) } ?? [:],
            extra: ["device_class": "timestamp"])
        config(
            "button", "refresh",
            [
                "name": japanese ? "今すぐ確認" : "Check now", "icon": "mdi:refresh", "command_topic": topics.refreshCommand,
                "payload_press": "PRESS",
            ])
        guard settings.parcelSensors else { return out }
        let active = Set(parcels.map(\.0.number))
        let arrived = delivered.compactMap { watch -> (Watch, Shipment?, WatchFamily)? in
            guard !active.contains(watch.number), deliveredToday(watch, today: today) else { return nil }
            return (watch, watch.latest?.shipment, .delivered)
        }
        for (watch, shipment, _) in (parcels + arrived).prefix(HomeAssistantSettings.parcelSensorLimit) {
            let carrier = watch.carrier ?? shipment?.carrier
            let carrierName = carrier.map { japanese ? $0.name : $0.englishName } ?? ""
            let state =
                shipment.map { japanese ? $0.status.label : ($0.status.labelEnglish ?? $0.status.label) }
                ?? (japanese ? "確認中" : "Checking")
            sensor(
                "parcel_\(watch.number.digits)",
                name: watch.label ?? [carrierName, watch.number.formatted].filter { !$0.isEmpty }.joined(separator: " "),
                icon: "mdi:package-variant-closed", state: state,
                attributes: summary(watch, shipment, japanese: japanese))
        }
        return out
    }

    /// Delivered on `today` (Japan's day: the page's time of delivery, else of its last event, else when it was
    /// read): the day it shows 配達完了 before its sensor goes.
    static func deliveredToday(_ watch: Watch, today: JapanDateTime) -> Bool {
        guard let latest = watch.latest, let shipment = latest.shipment, WatchFamily(shipment) == .delivered else { return false }
        let at = shipment.deliveredAt ?? shipment.events.last?.at ?? JapanDateTime(latest.fetchedAt)
        return (at.year, at.month, at.day) == (today.year, today.month, today.day)
    }

    /// Out for delivery, or planned for today (``Shipment/arrives(on:)``: the web app's 今日 and the morning summary
    /// ask the same).
    static func arrivesToday(_ shipment: Shipment, today: JapanDateTime) -> Bool {
        shipment.arrives(on: today)
    }

    /// When the carrier plans to bring it, today or later: the window's start, else the day's start.
    static func plannedStart(_ shipment: Shipment, today: JapanDateTime) -> JapanDateTime? {
        guard shipment.status.code != .delivered, let planned = shipment.requestedDelivery ?? shipment.scheduledDelivery,
            let date = planned.date, (date.year, date.month, date.day) >= (today.year, today.month, today.day)
        else { return nil }
        let parts = planned.windowStart?.split(separator: ":").compactMap { Int($0) } ?? []
        let time = parts.count == 2 ? JapanDateTime.TimeOfDay(hour: parts[0], minute: parts[1]) : nil
        return JapanDateTime(year: date.year, month: date.month, day: date.day, time: time ?? .init(hour: 0, minute: 0))
    }

    /// The attributes every parcel has (null when not known).
    static let parcelAttributes = [
        "number", "family", "carrier", "carrier_name", "label", "status", "status_text", "last_event", "last_event_at",
        "place", "planned_date", "window_start", "window_end", "url", "redelivery_url", "kept_until", "office",
        "telephone",
    ]

    /// A parcel's attributes: what an automation or a card reads.
    static func summary(_ watch: Watch, _ shipment: Shipment?, japanese: Bool) -> [String: Any] {
        let carrier = watch.carrier ?? shipment?.carrier
        let event = shipment?.events.last
        let planned = shipment?.requestedDelivery ?? shipment?.scheduledDelivery
        var out: [String: Any] = [
            "number": watch.number.digits,
            "family": WatchFamily(shipment).rawValue,
        ]
        out["carrier"] = carrier?.rawValue
        out["carrier_name"] = carrier.map { japanese ? $0.name : $0.englishName }
        out["label"] = watch.label
        out["status"] = shipment?.status.code.rawValue
        out["status_text"] = shipment.map { japanese ? $0.status.label : ($0.status.labelEnglish ?? $0.status.label) }
        out["last_event"] = event.map { japanese ? $0.label : ($0.labelEnglish ?? $0.label) }
        out["last_event_at"] = event?.at?.iso8601
        out["place"] = event?.place
        out["planned_date"] = planned?.date?.dateText
        out["window_start"] = planned?.windowStart
        out["window_end"] = planned?.windowEnd
        out["url"] = carrier?.definition.link(forMail: watch.number)?.absoluteString
        // What a family acts on: the carrier's page to ask for redelivery or another day, and after a missed
        // delivery until when it is kept and whom to call (the page's office, else the carrier's service centre).
        out["redelivery_url"] = shipment?.redeliveryPage?.absoluteString
        if let shipment, let missed = MissedDelivery(shipment) {
            out["kept_until"] = TrackingColumns.isoDate(missed.keptUntil)
            out["office"] = missed.office?.name
            out["telephone"] = missed.office?.telephone
        }
        // Every attribute is there, null when not known: a template reading `p.window_start` of a parcel without a
        // window gets none rather than a warning in Home Assistant's log.
        for key in Self.parcelAttributes where out[key] == nil { out[key] = NSNull() }
        return out
    }

    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
