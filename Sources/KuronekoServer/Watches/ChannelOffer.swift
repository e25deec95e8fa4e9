import Foundation
import KuronekoNotify

/// The channel kinds a server offers and what it has that they may need (its VAPID key, its SMTP server, the
/// operator's settings for each kind): `GET /v1/channels` describes each kind from here, so the web app's form
/// and other clients learn a kind's fields without knowing the kind.
public struct ChannelOffer: Sendable {
    public let kinds: ChannelKindRegistry
    public let server: ChannelServer

    public init(kinds: ChannelKindRegistry = .standard, server: ChannelServer = ChannelServer()) {
        self.kinds = kinds
        self.server = server
    }

    /// Why this server cannot send `kind` now, or `nil`; a server setting without a default that the operator
    /// has not given makes a kind unavailable too.
    public func unavailable(_ kind: any ChannelKind) -> String? {
        let given = server.settings(for: kind)
        if let missing = kind.serverSettings.first(where: { given[$0.name] == nil }) {
            return "this server sends no \(kind.name) messages: its operator has not given "
                + "--channel-setting \(kind.name).\(missing.name)=… (\(missing.help))"
        }
        return kind.unavailable(on: server)
    }

    /// The names of the kinds this server can send now.
    var available: [String] { kinds.kinds.filter { unavailable($0) == nil }.map(\.name) }

    /// Every kind as `GET /v1/channels` describes it: name, title, fields (name, form, label, hint, placeholder),
    /// whether it can be sent now and why not, and whether a person can add it by typing (not Web Push).
    var described: [[String: Any]] {
        kinds.kinds.map { kind in
            let fields: [[String: Any]] = kind.fields.map { field in
                var object: [String: Any] = [
                    "name": field.name, "form": field.form.rawValue,
                    "label": ["ja": field.label.japanese, "en": field.label.english],
                ]
                if let hint = field.hint { object["hint"] = ["ja": hint.japanese, "en": hint.english] }
                if let placeholder = field.placeholder { object["placeholder"] = placeholder }
                return object
            }
            let reason = unavailable(kind)
            return [
                "name": kind.name, "title": ["ja": kind.title.japanese, "en": kind.title.english],
                "fields": fields, "available": reason == nil, "unavailable_reason": reason as Any? ?? NSNull(),
                "typed": !kind.fields.contains { $0.form == .subscription },
            ]
        }
    }
}
