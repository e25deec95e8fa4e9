import Foundation
import Kuroneko

/// What a shop tells its customers, and how: who it is (the sender the law asks a mail to name), which
/// milestones are told, the language and character set, and its own templates. One per owner, stored as JSON.
public struct NoticeSettings: Sendable, Hashable {
    public var enabled = false
    public var shop = Shop()
    public var milestones: [CustomerMilestone] = [.shipped, .outForDelivery, .delivered, .missedDelivery, .problem]
    public var language: AnnouncementLanguage = .japanese
    public var charset: MessageCharset = .iso2022JP
    /// The shop's own templates by language; a language without one uses ``NoticeTemplate/standard(_:)``.
    public var templates: [AnnouncementLanguage: NoticeTemplate] = [:]

    public init() {}

    /// The sender of the notices: the 特定電子メール法's name, address and contact, and where replies go.
    public struct Shop: Sendable, Hashable {
        public var name = ""
        public var address = ""
        /// A telephone, an address or a page where the customer reaches the shop.
        public var contact = ""
        public var replyTo: MailAddress?

        public init() {}
    }

    /// The template in force for `language`.
    public func template(_ language: AnnouncementLanguage) -> NoticeTemplate {
        templates[language] ?? NoticeTemplate.standard(language)
    }

    /// The documented bounds.
    public enum Limits {
        public static let shopName = 100
        public static let shopLine = 200
        public static let subject = 200
        public static let body = 4_000
        public static let bodyLines = 100
    }

    // MARK: JSON

    /// The settings as stored and served (`snake_case`, every key).
    public var json: [String: Any] {
        var shopJSON: [String: Any] = ["name": shop.name, "address": shop.address, "contact": shop.contact]
        shopJSON["reply_to"] = shop.replyTo?.text ?? NSNull()
        var templateJSON: [String: Any] = [:]
        for (language, template) in templates {
            templateJSON[language.rawValue] = ["subject": template.subject, "body": template.body]
        }
        return [
            "enabled": enabled, "shop": shopJSON, "milestones": milestones.map(\.rawValue),
            "language": language.rawValue, "charset": charset.rawValue, "templates": templateJSON,
        ]
    }

    public var data: Data {
        (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// Settings as stored: what does not read leaves the defaults (a stored row is always this program's).
    public static func stored(_ data: Data?) -> NoticeSettings {
        guard let data, let settings = try? parse(data) else { return NoticeSettings() }
        return settings
    }

    /// Reads settings sent by a person or a program: every key optional (what is missing keeps its default),
    /// no unknown key, each value of its type and within its bounds, templates naming only known fields.
    /// - Throws: ``NoticeSettingsError`` naming the first bad part.
    public static func parse(_ data: Data) throws(NoticeSettingsError) -> NoticeSettings {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw NoticeSettingsError(field: "body", message: "is not a JSON object")
        }
        try known(object, ["enabled", "shop", "milestones", "language", "charset", "templates"], at: "")
        var settings = NoticeSettings()
        if let value = object["enabled"] {
            // JSON's true and false, not the numbers 1 and 0 (which `as? Bool` would take).
            guard let number = value as? NSNumber, String(cString: number.objCType) == "c", let flag = value as? Bool
            else {
                throw NoticeSettingsError(field: "enabled", message: "is not true or false")
            }
            settings.enabled = flag
        }
        if let value = object["shop"] {
            guard let shop = value as? [String: Any] else {
                throw NoticeSettingsError(field: "shop", message: "is not an object of name, address, contact, reply_to")
            }
            try known(shop, ["name", "address", "contact", "reply_to"], at: "shop.")
            settings.shop.name = try line(shop["name"], "shop.name", limit: Limits.shopName)
            settings.shop.address = try line(shop["address"], "shop.address", limit: Limits.shopLine)
            settings.shop.contact = try line(shop["contact"], "shop.contact", limit: Limits.shopLine)
            let reply = try line(shop["reply_to"], "shop.reply_to", limit: 254)
            if !reply.isEmpty {
                do { settings.shop.replyTo = try MailAddress(parsing: reply) } catch {
                    throw NoticeSettingsError(field: "shop.reply_to", message: "\"\(reply)\" \(error)")
                }
            }
        }
        if let value = object["milestones"] {
            guard let names = value as? [String] else {
                throw NoticeSettingsError(field: "milestones", message: "is not a list of milestone names")
            }
            var chosen: [CustomerMilestone] = []
            for name in names {
                guard let milestone = CustomerMilestone(rawValue: name) else {
                    throw NoticeSettingsError(
                        field: "milestones",
                        message: "names \"\(name.prefix(40))\"; expected some of "
                            + CustomerMilestone.allCases.map(\.rawValue).joined(separator: ", "))
                }
                if !chosen.contains(milestone) { chosen.append(milestone) }
            }
            settings.milestones = chosen
        }
        if let value = object["language"] {
            guard let text = value as? String, let language = AnnouncementLanguage(rawValue: text) else {
                throw NoticeSettingsError(field: "language", message: "is not \"ja\" or \"en\"")
            }
            settings.language = language
        }
        if let value = object["charset"] {
            guard let text = (value as? String)?.lowercased(), let charset = MessageCharset(rawValue: text) else {
                throw NoticeSettingsError(field: "charset", message: "is not \"iso-2022-jp\" or \"utf-8\"")
            }
            settings.charset = charset
        }
        if let value = object["templates"] {
            guard let templates = value as? [String: Any] else {
                throw NoticeSettingsError(field: "templates", message: "is not an object of \"ja\" and \"en\" templates")
            }
            try known(templates, ["ja", "en"], at: "templates.")
            for (name, value) in templates {
                guard let language = AnnouncementLanguage(rawValue: name) else { continue }
                if value is NSNull { continue }
                guard let parts = value as? [String: Any] else {
                    throw NoticeSettingsError(field: "templates.\(name)", message: "is not an object of subject and body")
                }
                try known(parts, ["subject", "body"], at: "templates.\(name).")
                let standard = NoticeTemplate.standard(language)
                let subject = parts["subject"] == nil
                    ? standard.subject : try line(parts["subject"], "templates.\(name).subject", limit: Limits.subject)
                let body = parts["body"] == nil
                    ? standard.body : try text(parts["body"], "templates.\(name).body")
                let template = NoticeTemplate(subject: subject, body: body)
                if let problem = template.problem() {
                    throw NoticeSettingsError(field: "templates.\(name).\(problem.part)", message: problem.message)
                }
                settings.templates[language] = template
            }
        }
        return settings
    }

    /// What keeps the settings from being used to send: the shop's name, address and contact are required.
    public var missingForSending: [String] {
        [("shop.name", shop.name), ("shop.address", shop.address), ("shop.contact", shop.contact)]
            .filter { $0.1.isEmpty }.map(\.0)
    }

    private static func known(_ object: [String: Any], _ keys: Set<String>, at path: String) throws(NoticeSettingsError) {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw NoticeSettingsError(
                field: path + unknown, message: "is not a setting; expected \(keys.sorted().joined(separator: ", "))")
        }
    }

    private static func line(_ value: Any?, _ field: String, limit: Int) throws(NoticeSettingsError) -> String {
        guard let value, !(value is NSNull) else { return "" }
        guard let text = value as? String else { throw NoticeSettingsError(field: field, message: "is not text") }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= limit else {
            throw NoticeSettingsError(field: field, message: "is \(trimmed.count) characters long; at most \(limit)")
        }
        guard !trimmed.unicodeScalars.contains(where: Self.control) else {
            throw NoticeSettingsError(field: field, message: "holds a line break or control character; one line of text")
        }
        return trimmed
    }

    private static func text(_ value: Any?, _ field: String) throws(NoticeSettingsError) -> String {
        guard let text = value as? String else { throw NoticeSettingsError(field: field, message: "is not text") }
        let body = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard body.count <= Limits.body else {
            throw NoticeSettingsError(field: field, message: "is \(body.count) characters long; at most \(Limits.body)")
        }
        guard body.split(separator: "\n", omittingEmptySubsequences: false).count <= Limits.bodyLines else {
            throw NoticeSettingsError(field: field, message: "has more than \(Limits.bodyLines) lines")
        }
        guard !body.unicodeScalars.contains(where: { $0 != "\n" && Self.control($0) }) else {
            throw NoticeSettingsError(field: field, message: "holds a control character; text and line breaks only")
        }
        return body
    }

    /// C0 and C1 controls, DEL, and the bidirectional overrides a mail could hide text with.
    static func control(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}

/// Why notice settings were refused: the field, and what is wrong with it.
public struct NoticeSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let field: String
    public let message: String

    public var description: String { "\(field) \(message)" }
}
