/// One option of a command, declared once: its name, what kind of value it takes (with the range a number
/// must fall in), its default and its help. Parsing, `--help`, the shell completions and the man page all
/// read this, so they cannot drift apart.
struct OptionSpec: Sendable {
    /// What an option's value is, and so how it is read and checked.
    enum Kind: Sendable, Equatable {
        /// Given or not; no value.
        case flag
        /// Any text.
        case text
        /// One of a closed set of words (offered by completions).
        case choice([String])
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// A number of seconds within the range (fractions allowed).
        case seconds(ClosedRange<Double>)
        /// An http(s) URL.
        case url
        /// Where carriers' sites are: `CARRIER=URL` (or a bare URL, Yamato's form), comma-separated or the
        /// option given again.
        case endpoints
        /// An ISO 8601 time.
        case time
        /// A PEM file of certificates (certificate authorities to trust).
        case certificates
    }

    /// `--json`.
    let name: String
    /// `-q`, where the option has a one-letter form.
    let short: String?
    /// The value's placeholder (`SECONDS`); `nil` for a flag.
    let value: String?
    let kind: Kind
    /// The value used when neither the option nor its variable is given, as it would be typed; shown in help.
    let defaultValue: String?
    /// The `KURONEKO_…` variable that sets it when the flag is absent.
    let environment: String?
    /// What it does, in one sentence, without its default (``help`` adds it).
    let about: String

    /// What it does, with its default.
    var help: String { defaultValue.map { "\(about) (default \($0))" } ?? about }

    /// The values it takes, when they are a closed set.
    var choices: [String] {
        if case .choice(let words) = kind { return words }
        return []
    }

    var takesValue: Bool { kind != .flag }

    static func flag(_ name: String, short: String? = nil, environment: String? = nil, _ about: String) -> OptionSpec {
        OptionSpec(
            name: name, short: short, value: nil, kind: .flag, defaultValue: nil, environment: environment,
            about: about)
    }

    /// A text option.
    static func value(
        _ name: String, _ placeholder: String, default defaultValue: String? = nil, environment: String? = nil,
        _ about: String
    ) -> OptionSpec {
        value(name, placeholder, .text, default: defaultValue, environment: environment, about)
    }

    static func value(
        _ name: String, _ placeholder: String, _ kind: Kind, default defaultValue: String? = nil,
        environment: String? = nil, _ about: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: nil, value: placeholder, kind: kind, defaultValue: defaultValue,
            environment: environment, about: about)
    }

    /// `--lang ja|en`, `-q, --quiet`: the option as help and the man page show it.
    var synopsis: String {
        let long = short.map { "\($0), \(name)" } ?? name
        guard let value else { return long }
        return long + " " + (choices.isEmpty ? value : choices.joined(separator: "|"))
    }
}

/// What the arguments after the options are, for completions.
enum OperandKind: Sendable {
    case none, numbers, file, command, shell
    /// One of a few words (`keys create|list|revoke`).
    case choices([String])
}

/// One command: its options, what it does, and examples.
struct CommandSpec: Sendable {
    let name: String
    /// What follows `kuroneko NAME` in the usage line: `[options] [NUMBER...]`.
    let synopsis: String
    /// For the tool's list of commands.
    let summary: String
    /// Paragraphs for `--help` and the man page.
    let description: [String]
    let options: [OptionSpec]
    let operands: OperandKind
    let examples: [(command: String, explanation: String)]

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name || $0.short == name }
    }
}

/// A command of the tool, registered in ``CommandCatalog/commands``: its description, and how it runs from
/// its arguments read against that description.
protocol Command: SendableMetatype {
    static var spec: CommandSpec { get }
    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure)
    func run() async throws
}

/// A command that keeps its arguments and reads them as it runs (its memberwise initializer is the one
/// the catalogue calls).
protocol ArgumentsCommand: Command {
    init(arguments: ArgumentList, terminal: Terminal)
}

extension ArgumentsCommand {
    init(_ arguments: ArgumentList, terminal: Terminal) {
        self.init(arguments: arguments, terminal: terminal)
    }
}
