import Foundation
import Kuroneko

/// An option a command reads, named once, with the kind of value it takes in its type: each accessor of
/// ``ArgumentList`` takes only keys of its kind, so a misspelt option, or one read as the wrong kind, does not
/// compile. `OptionCatalogTests` checks that every key is declared, with the same kind, by the commands that
/// declare its name.
struct OptionKey<Kind: OptionKind>: Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

/// What an option's value is, as a type.
protocol OptionKind: Sendable {
    /// Whether a declared option is of this kind.
    static func matches(_ kind: OptionSpec.Kind) -> Bool
}

/// Given or not.
enum FlagOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .flag
    }
}

/// Any text.
enum TextOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .text
    }
}

/// One of its words.
enum ChoiceOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        if case .choice = kind { return true }
        return false
    }
}

/// A number in its range.
enum NumberOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        if case .number = kind { return true }
        return false
    }
}

/// Seconds in their range.
enum SecondsOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        if case .seconds = kind { return true }
        return false
    }
}

/// An http(s) URL.
enum URLOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .url
    }
}

/// Carriers' sites.
enum EndpointsOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .endpoints
    }
}

/// An ISO 8601 time.
enum TimeOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .time
    }
}

/// A PEM file of certificate authorities.
enum CertificatesOption: OptionKind {
    static func matches(_ kind: OptionSpec.Kind) -> Bool {
        kind == .certificates
    }
}

extension OptionKey where Kind == FlagOption {
    static let all = OptionKey("--all")
    static let allowPrivate = OptionKey("--allow-private")
    static let allowPrivateWebhooks = OptionKey("--allow-private-webhooks")
    static let changedLayout = OptionKey("--changed-layout")
    static let csv = OptionKey("--csv")
    static let demo = OptionKey("--demo")
    static let excel = OptionKey("--excel")
    static let fail = OptionKey("--fail")
    static let finished = OptionKey("--finished")
    static let json = OptionKey("--json")
    static let raw = OptionKey("--raw")
    static let jsonl = OptionKey("--jsonl")
    static let mailboxMarkSeen = OptionKey("--mailbox-mark-seen")
    static let mqttParcels = OptionKey("--mqtt-parcels")
    static let man = OptionKey("--man")
    static let noColor = OptionKey("--no-color")
    static let noWebApp = OptionKey("--no-web-app")
    static let quiet = OptionKey("--quiet")
    static let requireApiKey = OptionKey("--require-api-key")
    static let skipInvalid = OptionKey("--skip-invalid")
    static let stalled = OptionKey("--stalled")
    static let overdue = OptionKey("--overdue")
    static let today = OptionKey("--today")
    static let tomorrow = OptionKey("--tomorrow")
    static let truncate = OptionKey("--truncate")
    static let watch = OptionKey("--watch")
}

extension OptionKey where Kind == TextOption {
    static let channelSetting = OptionKey("--channel-setting")
    static let canary = OptionKey("--canary")
    static let charset = OptionKey("--charset")
    static let column = OptionKey("--column")
    static let corsOrigins = OptionKey("--cors-origins")
    static let trustedProxy = OptionKey("--trusted-proxy")
    static let db = OptionKey("--db")
    static let exec = OptionKey("--exec")
    static let forgetFinishedAfter = OptionKey("--forget-finished-after")
    static let host = OptionKey("--host")
    static let interval = OptionKey("--interval")
    static let kinds = OptionKey("--kinds")
    static let label = OptionKey("--label")
    static let labelColumn = OptionKey("--label-column")
    static let carrierColumn = OptionKey("--carrier-column")
    static let reference = OptionKey("--reference")
    static let recipient = OptionKey("--recipient")
    static let telephone = OptionKey("--telephone")
    static let shippedOn = OptionKey("--shipped-on")
    static let note = OptionKey("--note")
    static let mailbox = OptionKey("--mailbox")
    static let mailboxMoveTo = OptionKey("--mailbox-move-to")
    static let mqtt = OptionKey("--mqtt")
    static let mqttPasswordFile = OptionKey("--mqtt-password-file")
    static let mqttDiscoveryPrefix = OptionKey("--mqtt-discovery-prefix")
    static let mqttTopic = OptionKey("--mqtt-topic")
    static let mailboxPasswordFile = OptionKey("--mailbox-password-file")
    static let name = OptionKey("--name")
    static let list = OptionKey("--list")
    static let admin = OptionKey("--admin")
    static let olderThan = OptionKey("--older-than")
    static let quietHours = OptionKey("--quiet-hours")
    static let summaryAt = OptionKey("--summary-at")
    static let search = OptionKey("--search")
    static let smtpCredentials = OptionKey("--smtp-credentials")
    static let smtpFrom = OptionKey("--smtp-from")
    static let displayName = OptionKey("--display-name")
    static let smtpUrl = OptionKey("--smtp-url")
    static let status = OptionKey("--status")
    static let tlsCert = OptionKey("--tls-cert")
    static let tlsKey = OptionKey("--tls-key")
    static let unregisteredGrace = OptionKey("--unregistered-grace")
    static let vapidSubject = OptionKey("--vapid-subject")
}

extension OptionKey where Kind == ChoiceOption {
    static let carrier = OptionKey("--carrier")
    static let encoding = OptionKey("--encoding")
    static let format = OptionKey("--format")
    static let kind = OptionKey("--kind")
    static let lang = OptionKey("--lang")
    static let milestone = OptionKey("--milestone")
    static let role = OptionKey("--role")
    static let mailCharset = OptionKey("--mail-charset")
    static let logFormat = OptionKey("--log-format")
    static let mqttLanguage = OptionKey("--mqtt-language")
    static let output = OptionKey("--output")
    static let outputEncoding = OptionKey("--output-encoding")
    static let smtpStarttls = OptionKey("--smtp-starttls")
}

extension OptionKey where Kind == NumberOption {
    static let batchWindowMs = OptionKey("--batch-window-ms")
    static let breakerFailures = OptionKey("--breaker-failures")
    static let cacheSize = OptionKey("--cache-size")
    static let connectionsPerClient = OptionKey("--connections-per-client")
    static let errorRate = OptionKey("--error-rate")
    static let hangSeconds = OptionKey("--hang-seconds")
    static let httpRedirectPort = OptionKey("--http-redirect-port")
    static let latencyMs = OptionKey("--latency-ms")
    static let maxConcurrent = OptionKey("--max-concurrent")
    static let maxConnections = OptionKey("--max-connections")
    static let maxWatchesPerOwner = OptionKey("--max-watches-per-owner")
    static let noticeRate = OptionKey("--notice-rate")
    static let pollSpeed = OptionKey("--poll-speed")
    static let port = OptionKey("--port")
    static let queueCapacity = OptionKey("--queue-capacity")
    static let receiveTimeout = OptionKey("--receive-timeout")
    static let speed = OptionKey("--speed")
}

extension OptionKey where Kind == SecondsOption {
    static let arrivingSoon = OptionKey("--arriving-soon")
    static let breakerCoolDown = OptionKey("--breaker-cool-down")
    static let canaryEvery = OptionKey("--canary-every")
    static let mailboxEvery = OptionKey("--mailbox-every")
    static let minInterval = OptionKey("--min-interval")
    static let queueDeadline = OptionKey("--queue-deadline")
    static let shutdownTimeout = OptionKey("--shutdown-timeout")
    static let timeout = OptionKey("--timeout")
    static let ttlActive = OptionKey("--ttl-active")
    static let ttlInvalid = OptionKey("--ttl-invalid")
    static let ttlTerminal = OptionKey("--ttl-terminal")
}

extension OptionKey where Kind == URLOption {
    static let lineOrigin = OptionKey("--line-origin")
    static let publicUrl = OptionKey("--public-url")
}

extension OptionKey where Kind == EndpointsOption {
    static let endpoint = OptionKey("--endpoint")
}

extension OptionKey where Kind == TimeOption {
    static let now = OptionKey("--now")
    static let start = OptionKey("--start")
}

extension OptionKey where Kind == CertificatesOption {
    static let caFile = OptionKey("--ca-file")
}

/// Every key, for the catalogue's test: its name and whether a declared kind is its own.
enum OptionKeys {
    static let all: [(name: String, matches: @Sendable (OptionSpec.Kind) -> Bool)] = [
        ("--all", FlagOption.matches),
        ("--raw", FlagOption.matches),
        ("--allow-private", FlagOption.matches),
        ("--allow-private-webhooks", FlagOption.matches),
        ("--changed-layout", FlagOption.matches),
        ("--csv", FlagOption.matches),
        ("--demo", FlagOption.matches),
        ("--excel", FlagOption.matches),
        ("--fail", FlagOption.matches),
        ("--finished", FlagOption.matches),
        ("--json", FlagOption.matches),
        ("--jsonl", FlagOption.matches),
        ("--mailbox-mark-seen", FlagOption.matches),
        ("--man", FlagOption.matches),
        ("--no-color", FlagOption.matches),
        ("--no-web-app", FlagOption.matches),
        ("--quiet", FlagOption.matches),
        ("--require-api-key", FlagOption.matches),
        ("--skip-invalid", FlagOption.matches),
        ("--stalled", FlagOption.matches),
        ("--overdue", FlagOption.matches),
        ("--handled", FlagOption.matches),
        ("--not-handled", FlagOption.matches),
        ("--today", FlagOption.matches),
        ("--tomorrow", FlagOption.matches),
        ("--truncate", FlagOption.matches),
        ("--watch", FlagOption.matches),
        ("--access-token", TextOption.matches),
        ("--address", TextOption.matches),
        ("--canary", TextOption.matches),
        ("--charset", TextOption.matches),
        ("--column", TextOption.matches),
        ("--cors-origins", TextOption.matches),
        ("--trusted-proxy", TextOption.matches),
        ("--db", TextOption.matches),
        ("--exec", TextOption.matches),
        ("--forget-finished-after", TextOption.matches),
        ("--host", TextOption.matches),
        ("--interval", TextOption.matches),
        ("--kinds", TextOption.matches),
        ("--label", TextOption.matches),
        ("--label-column", TextOption.matches),
        ("--carrier-column", TextOption.matches),
        ("--reference", TextOption.matches),
        ("--recipient", TextOption.matches),
        ("--telephone", TextOption.matches),
        ("--shipped-on", TextOption.matches),
        ("--note", TextOption.matches),
        ("--mailbox", TextOption.matches),
        ("--mailbox-move-to", TextOption.matches),
        ("--mailbox-password-file", TextOption.matches),
        ("--name", TextOption.matches),
        ("--list", TextOption.matches),
        ("--admin", TextOption.matches),
        ("--older-than", TextOption.matches),
        ("--quiet-hours", TextOption.matches),
        ("--summary-at", TextOption.matches),
        ("--search", TextOption.matches),
        ("--smtp-credentials", TextOption.matches),
        ("--smtp-from", TextOption.matches),
        ("--display-name", TextOption.matches),
        ("--smtp-url", TextOption.matches),
        ("--status", TextOption.matches),
        ("--tls-cert", TextOption.matches),
        ("--tls-key", TextOption.matches),
        ("--to", TextOption.matches),
        ("--unregistered-grace", TextOption.matches),
        ("--url", TextOption.matches),
        ("--vapid-subject", TextOption.matches),
        ("--carrier", ChoiceOption.matches),
        ("--encoding", ChoiceOption.matches),
        ("--format", ChoiceOption.matches),
        ("--kind", ChoiceOption.matches),
        ("--lang", ChoiceOption.matches),
        ("--milestone", ChoiceOption.matches),
        ("--role", ChoiceOption.matches),
        ("--mail-charset", ChoiceOption.matches),
        ("--log-format", ChoiceOption.matches),
        ("--output", ChoiceOption.matches),
        ("--output-encoding", ChoiceOption.matches),
        ("--smtp-starttls", ChoiceOption.matches),
        ("--batch-window-ms", NumberOption.matches),
        ("--breaker-failures", NumberOption.matches),
        ("--cache-size", NumberOption.matches),
        ("--connections-per-client", NumberOption.matches),
        ("--error-rate", NumberOption.matches),
        ("--hang-seconds", NumberOption.matches),
        ("--http-redirect-port", NumberOption.matches),
        ("--latency-ms", NumberOption.matches),
        ("--max-concurrent", NumberOption.matches),
        ("--max-connections", NumberOption.matches),
        ("--max-watches-per-owner", NumberOption.matches),
        ("--notice-rate", NumberOption.matches),
        ("--poll-speed", NumberOption.matches),
        ("--port", NumberOption.matches),
        ("--queue-capacity", NumberOption.matches),
        ("--receive-timeout", NumberOption.matches),
        ("--speed", NumberOption.matches),
        ("--arriving-soon", SecondsOption.matches),
        ("--breaker-cool-down", SecondsOption.matches),
        ("--canary-every", SecondsOption.matches),
        ("--mailbox-every", SecondsOption.matches),
        ("--min-interval", SecondsOption.matches),
        ("--queue-deadline", SecondsOption.matches),
        ("--shutdown-timeout", SecondsOption.matches),
        ("--timeout", SecondsOption.matches),
        ("--ttl-active", SecondsOption.matches),
        ("--ttl-invalid", SecondsOption.matches),
        ("--ttl-terminal", SecondsOption.matches),
        ("--line-origin", URLOption.matches),
        ("--public-url", URLOption.matches),
        ("--endpoint", EndpointsOption.matches),
        ("--now", TimeOption.matches),
        ("--start", TimeOption.matches),
        ("--ca-file", CertificatesOption.matches),
    ]
}

extension ArgumentList {
    func flag(_ key: OptionKey<FlagOption>) -> Bool { flag(named: key.name) }
    func flagOrVariable(_ key: OptionKey<FlagOption>) throws(CommandFailure) -> Bool { try flagOrVariable(named: key.name) }
    func text(_ key: OptionKey<TextOption>) -> String? { text(named: key.name) }
    func allValues(_ key: OptionKey<TextOption>) -> (texts: [String], source: String)? { allValues(named: key.name) }
    func choice(_ key: OptionKey<ChoiceOption>) throws(CommandFailure) -> String? { try choice(named: key.name) }
    func carrier(_ key: OptionKey<ChoiceOption>) throws(CommandFailure) -> Carrier? { try carrier(named: key.name) }
    func number(_ key: OptionKey<NumberOption>) throws(CommandFailure) -> Double? { try number(named: key.name) }
    func seconds(_ key: OptionKey<SecondsOption>) throws(CommandFailure) -> Duration? { try seconds(named: key.name) }
    func url(_ key: OptionKey<URLOption>) throws(CommandFailure) -> URL? { try url(named: key.name) }
    func endpoints(_ key: OptionKey<EndpointsOption>) throws(CommandFailure) -> [Carrier: URL] { try endpoints(named: key.name) }
    func time(_ key: OptionKey<TimeOption>) throws(CommandFailure) -> Date? { try time(named: key.name) }
    func certificates(_ key: OptionKey<CertificatesOption>) throws(CommandFailure) -> String? {
        try certificates(named: key.name)
    }
}
