/// One option of a command, described once: parsing, `--help`, the shell completions and the man page all
/// read this, so they cannot drift apart.
struct OptionSpec: Sendable {
    /// `--json`.
    let name: String
    /// `-q`, where the option has a one-letter form.
    let short: String?
    /// The value's placeholder (`SECONDS`); `nil` for a flag.
    let value: String?
    /// The values it takes, when they are a closed set (offered by completions).
    let choices: [String]
    /// The `KURONEKO_…` variable that sets it when the flag is absent.
    let environment: String?
    /// What it does, with its default; one sentence.
    let help: String

    static func flag(_ name: String, short: String? = nil, environment: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, choices: [], environment: environment, help: help)
    }

    static func value(
        _ name: String, _ placeholder: String, choices: [String] = [], environment: String? = nil, _ help: String
    ) -> OptionSpec {
        OptionSpec(name: name, short: nil, value: placeholder, choices: choices, environment: environment, help: help)
    }

    var takesValue: Bool { value != nil }

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
