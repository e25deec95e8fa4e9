import Foundation

/// The channel kinds a server offers: ``standard`` holds every kind of this project, registered once here; a
/// server may be given more (``registering(_:)``), as the tests' kinds are. The API, the OpenAPI document, the
/// command line and the web app take their lists from the registry in use.
public struct ChannelKindRegistry: Sendable {
    public private(set) var kinds: [any ChannelKind]

    public static let standard = ChannelKindRegistry(kinds: [
        WebPushChannel(), NtfyChannel(), SlackChannel(), DiscordChannel(), WebhookChannel(), EmailChannel(),
        LineChannel(),
    ])

    /// This registry and `kind` (which replaces a kind of the same name).
    public func registering(_ kind: any ChannelKind) -> ChannelKindRegistry {
        var copy = self
        copy.kinds.removeAll { $0.name == kind.name }
        copy.kinds.append(kind)
        return copy
    }

    public var names: [String] { kinds.map(\.name) }

    public func named(_ name: String) -> (any ChannelKind)? { kinds.first { $0.name == name } }

    /// Every kind-specific field name of any kind, each once.
    public var fieldNames: [String] {
        var seen: [String] = []
        for field in kinds.flatMap(\.fields) where !seen.contains(field.name) { seen.append(field.name) }
        return seen
    }

    /// The kinds a person can add by typing (not Web Push, whose subscription only a browser gives).
    public var typed: [any ChannelKind] {
        kinds.filter { kind in !kind.fields.contains { $0.form == .subscription } }
    }

    /// The operator's `KIND.NAME=VALUE` settings, checked: by kind and name, or the one line that says which
    /// is wrong and what would be right.
    public func serverSettings(_ given: [String]) throws(ChannelSettingsError) -> [String: [String: String]] {
        var settings: [String: [String: String]] = [:]
        for item in given {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts.first?.split(separator: ".", maxSplits: 1).map(String.init) ?? []
            let known = kinds.flatMap { kind in kind.serverSettings.map { "\(kind.name).\($0.name)" } }
            guard parts.count == 2, key.count == 2, let kind = named(key[0]),
                let setting = kind.serverSettings.first(where: { $0.name == key[1] })
            else {
                throw ChannelSettingsError(
                    "--channel-setting \"\(item.prefix(60))\" is not KIND.NAME=VALUE of a known setting; they are "
                        + (known.isEmpty ? "none" : known.joined(separator: ", ")))
            }
            if let refusal = setting.refusal(of: parts[1]) {
                throw ChannelSettingsError("--channel-setting \(key[0]).\(key[1]): \"\(parts[1].prefix(60))\" \(refusal)")
            }
            settings[kind.name, default: [:]][setting.name] = parts[1]
        }
        return settings
    }
}

/// What `POST /v1/channels` makes of a kind's fields: the destination JSON to store (the kind's settings and the
/// common `urgent` list), the address the guard checks and what is shown once.
public struct PreparedChannel: Sendable {
    public let destination: Data
    public let guardedURL: String?
    public let shownOnce: [String: String]
}

/// What every kind's stored destination holds besides the kind's own settings.
struct CommonChannelSettings: Codable {
    /// The kinds the owner marked urgent (sent through quiet hours); `nil`: what is urgent by its nature
    /// (exceptions, arriving soon, out for delivery).
    var urgent: [String]?
}

extension ChannelKind {
    /// Checks the kind's fields of a request and makes what to store, with the common `urgent` list.
    public func prepare(_ object: [String: Any], urgent: [String]?) throws(ChannelSettingsError) -> PreparedChannel {
        let settings = try settings(from: object)
        guard var stored = (try? JSONSerialization.jsonObject(with: JSONEncoder().encode(settings))) as? [String: Any]
        else { throw ChannelSettingsError("the \(name) channel's settings cannot be stored") }
        if let urgent { stored["urgent"] = urgent }
        let destination = (try? JSONSerialization.data(withJSONObject: stored, options: [.sortedKeys])) ?? Data()
        return PreparedChannel(
            destination: destination, guardedURL: guardedURL(of: settings), shownOnce: shownOnce(settings))
    }

    /// The stored settings of a channel of this kind, or `nil` when they cannot be read.
    public func storedSettings(_ destination: Data) -> Settings? {
        try? JSONDecoder().decode(Settings.self, from: destination)
    }

    /// The destination as the API shows it, from the stored settings.
    public func shown(destination: Data) -> String? {
        storedSettings(destination).flatMap(shown)
    }

    /// The message for an announcement, from the stored settings.
    public func message(for announcement: ChannelAnnouncement, destination: Data, context: ChannelContext)
        throws(ChannelMessageError) -> ChannelMessage
    {
        guard let settings = storedSettings(destination) else {
            throw ChannelMessageError("the \(name) channel's settings cannot be read")
        }
        return try message(for: announcement, settings: settings, context: context)
    }
}

/// What any channel's stored destination tells without its kind.
public enum ChannelDestination {
    /// The kinds the owner marked urgent; `nil`: none marked.
    public static func urgent(in destination: Data) -> [String]? {
        (try? JSONDecoder().decode(CommonChannelSettings.self, from: destination))?.urgent
    }
}
