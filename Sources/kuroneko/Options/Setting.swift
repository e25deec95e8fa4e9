import ArgumentParser
import Foundation
import Kuroneko

/// What swift-argument-parser does not know of an option, declared once beside it: the `KURONEKO_…` variable
/// read when the option is not given, the range a number must fall in, and the default used when neither is
/// given (shown in help). The option itself (its name, value type and help) is the command's `@Option`, whose
/// help is ``help(_:value:)``; ``OptionReader`` reads the two together.
struct Setting: Sendable {
    /// `--timeout`, for messages.
    let name: String
    /// `KURONEKO_TIMEOUT`.
    let variable: String?
    /// The range a number (or a number of seconds) must fall in.
    let range: ClosedRange<Double>?
    /// The value used when neither the option nor its variable is given, as it would be typed.
    let defaultValue: String?

    init(_ name: String, variable: String? = nil, range: ClosedRange<Double>? = nil, default defaultValue: String? = nil) {
        self.name = name
        self.variable = variable
        self.range = range
        self.defaultValue = defaultValue
    }

    /// What a number of this setting must be: `a number from 0.1 to 600`.
    var expectation: String {
        guard let range else { return "a number" }
        return "a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted())"
    }

    /// A number as given on the command line, checked against the range: the option's `transform`, so that
    /// swift-argument-parser refuses a word or a number out of range naming what would be right
    /// (`The value '0' is invalid for '--timeout <SECONDS>': expected a number from 0.1 to 600`).
    @Sendable func parse(_ text: String) throws -> Double {
        guard let number = Double(text), number.isFinite, range?.contains(number) ?? true else {
            throw ValidationError("expected \(expectation)")
        }
        return number
    }

    /// The option's help: what it does, its default and its variable.
    func help(_ about: String, value: String? = nil) -> ArgumentHelp {
        var text = about
        if let defaultValue { text += " (default \(defaultValue))" }
        if let variable { text += " [env \(variable)]" }
        return ArgumentHelp(text, valueName: value)
    }

    /// `15`, `0.5`: a number as it would be typed.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A duration as a number of seconds, as it would be typed.
    static func seconds(_ duration: Duration) -> String {
        number(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

/// The help of an option without a variable or a default of its own.
extension ArgumentHelp {
    static func about(_ text: String, value: String? = nil) -> ArgumentHelp {
        ArgumentHelp(text, valueName: value)
    }
}

extension CommandConfiguration {
    /// A command of the tool: its name, what follows `kuroneko NAME` in the usage line, its one-line summary,
    /// its description's paragraphs and examples (shown by `--help` and the man page).
    static func command(
        _ name: String, usage: String, summary: String, description: [String],
        examples: [(command: String, explanation: String)]
    ) -> CommandConfiguration {
        let shown = examples.map { "  \($0.command)\n      \($0.explanation)" }.joined(separator: "\n")
        return CommandConfiguration(
            commandName: name, abstract: summary,
            usage: "kuroneko \(name) \(usage)",
            discussion: (description + (examples.isEmpty ? [] : ["Examples:\n" + shown])).joined(separator: "\n\n"),
            helpNames: [.short, .long])
    }
}
