import Foundation

/// Words in both of the app's languages.
public struct ChannelWords: Sendable, Hashable, Encodable {
    public let japanese: String
    public let english: String

    public init(_ japanese: String, _ english: String) {
        self.japanese = japanese
        self.english = english
    }

    enum CodingKeys: String, CodingKey {
        case japanese = "ja"
        case english = "en"
    }
}

/// One field a kind takes in `POST /v1/channels`: what the API checks, the OpenAPI document describes, the
/// command line offers as `--NAME` (underscores as dashes) and the web app's form draws.
public struct ChannelField: Sendable, Hashable, Encodable {
    /// What is typed into it, which decides the form's input and the command line's reading.
    public enum Form: String, Sendable, Hashable, Encodable {
        /// An http(s) URL.
        case url
        /// An e-mail address.
        case email
        /// A secret (a token, a key): typed hidden, stored, never shown or logged.
        case secret
        /// Words.
        case text
        /// One value or several separated by commas (sent as a string, or a list when several).
        case list
        /// A browser's push subscription: only the browser can give it, so no form or flag offers it.
        case subscription
    }

    /// The JSON name: `url`, `access_token`.
    public let name: String
    public let form: Form
    public let label: ChannelWords
    /// What to type, one line in each language.
    public let hint: ChannelWords?
    /// An example value.
    public let placeholder: String?
    /// The environment variable the command line reads it from when the flag is not given (for secrets, which
    /// do not belong on a command line).
    public let environment: String?

    public init(
        _ name: String, _ form: Form, label: ChannelWords, hint: ChannelWords? = nil, placeholder: String? = nil,
        environment: String? = nil
    ) {
        self.name = name
        self.form = form
        self.label = label
        self.hint = hint
        self.placeholder = placeholder
        self.environment = environment
    }

    /// The command line's flag: `--access-token`.
    public var flag: String { "--" + name.replacingOccurrences(of: "_", with: "-") }

    /// The one `url` field of a kind that takes its service's URL.
    public static func url(for service: String, placeholder: String? = nil) -> ChannelField {
        ChannelField(
            "url", .url, label: ChannelWords("URL", "URL"),
            hint: ChannelWords("\(service)のURL", "the \(service) URL"), placeholder: placeholder)
    }

    /// The longest URL a channel keeps.
    public static let maximumURLLength = 2_048

    /// A request's `url`: a string of at most 2,048 characters (the address guard checks where it leads).
    public static func url(in object: [String: Any], kind: String) throws(ChannelSettingsError) -> String {
        guard let url = object["url"] as? String, url.count <= maximumURLLength else {
            throw ChannelSettingsError("url is missing or not a string; a \(kind) channel needs its URL")
        }
        return url
    }

    /// A secret field of a request: printable ASCII without spaces, 1 to `limit` characters.
    public static func secret(_ name: String, in object: [String: Any], kind: String, limit: Int = 1_000)
        throws(ChannelSettingsError) -> String
    {
        guard let text = object[name] as? String, (1...limit).contains(text.count),
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw ChannelSettingsError(
                "\(name) is missing or not a \(kind) secret (printable ASCII, no spaces, at most \(limit) characters)")
        }
        return text
    }

    /// A stored URL as a URL, or the error that says it is unusable.
    static func address(_ text: String, kind: String) throws(ChannelMessageError) -> URL {
        guard let url = URL(string: text) else { throw ChannelMessageError("the \(kind) channel has no usable URL") }
        return url
    }
}

/// A setting the operator gives a kind on the server (`serve --channel-setting line.origin=URL`), such as where
/// its service is.
public struct ChannelServerSetting: Sendable, Hashable {
    public let name: String
    public let form: ChannelField.Form
    /// The value when the operator gives none; `nil`: the kind is unavailable until it is given.
    public let defaultValue: String?
    public let help: String

    public init(_ name: String, _ form: ChannelField.Form, default defaultValue: String? = nil, help: String) {
        self.name = name
        self.form = form
        self.defaultValue = defaultValue
        self.help = help
    }

    /// Why `value` is not right for this setting, or `nil`.
    public func refusal(of value: String) -> String? {
        switch form {
        case .url:
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else { return "is not an http(s) URL such as https://api.example.com" }
            return nil
        default:
            return value.isEmpty || value.count > 2_048 || value.contains(where: \.isNewline)
                ? "is empty, longer than 2048 characters or more than one line" : nil
        }
    }
}

/// What the server has that a kind may need: its VAPID key, its SMTP server, and the operator's settings for
/// each kind.
public struct ChannelServer: Sendable {
    public var hasVAPID: Bool
    public var sendsMail: Bool
    /// The operator's settings, by kind and setting name, as given (defaults are not filled in).
    public var settings: [String: [String: String]]

    public init(hasVAPID: Bool = false, sendsMail: Bool = false, settings: [String: [String: String]] = [:]) {
        self.hasVAPID = hasVAPID
        self.sendsMail = sendsMail
        self.settings = settings
    }

    /// A kind's settings with its defaults filled in.
    public func settings(for kind: any ChannelKind) -> [String: String] {
        var values = settings[kind.name] ?? [:]
        for setting in kind.serverSettings where values[setting.name] == nil {
            values[setting.name] = setting.defaultValue
        }
        return values
    }
}
