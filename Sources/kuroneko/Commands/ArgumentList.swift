/// A command's arguments, read against its ``CommandSpec``: `--name VALUE`, `--name=VALUE`, flags, `--`
/// ending the options, and everything else an operand. An option the command does not have is refused at
/// once, naming the closest one it does have.
struct ArgumentList {
    let spec: CommandSpec
    /// The environment, for settings that may also come from `KURONEKO_…` variables.
    let environment: [String: String]
    /// What is left after the options, in order.
    let operands: [String]
    private var values: [String: String] = [:]
    /// Every value of an option given more than once, in order (``values`` keeps the last).
    private var repeated: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// The command's name, for messages.
    var command: String { spec.name }

    init(_ arguments: [String], spec: CommandSpec, environment: [String: String] = [:]) throws(CommandFailure) {
        self.spec = spec
        self.environment = environment
        var operands: [String] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let equals = argument.hasPrefix("--") ? argument.firstIndex(of: "=") : nil
            let name = equals.map { String(argument[..<$0]) } ?? argument
            let inline = equals.map { String(argument[argument.index(after: $0)...]) }
            guard let option = spec.option(named: name) else {
                let known = spec.options.map(\.name) + ["--help"]
                let hint = Suggestion.closest(to: name, among: known).map { "did you mean \($0)? " } ?? ""
                throw .usage("\(spec.name): unknown option '\(name)'; \(hint)see 'kuroneko \(spec.name) --help'")
            }
            if option.takesValue {
                if let inline {
                    values[option.name] = inline
                    repeated[option.name, default: []].append(inline)
                } else if index < arguments.count {
                    values[option.name] = arguments[index]
                    repeated[option.name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw .usage(
                        "\(spec.name): option \(option.name) needs a value (\(option.value ?? "VALUE")); "
                            + "see 'kuroneko \(spec.name) --help'")
                }
            } else {
                guard inline == nil else {
                    throw .usage("\(spec.name): option \(option.name) takes no value; give it alone")
                }
                flags.insert(option.name)
            }
        }
        self.operands = operands
    }

    /// Whether a flag was given. A flag the command does not declare cannot have been given: it reads as
    /// absent (a debug build stops there, so the tests find the mistake; a release never crashes on it).
    func flag(named name: String) -> Bool {
        guard spec.option(named: name)?.takesValue == false else {
            assertionFailure("\(name) is not a flag of \(spec.name)")
            return false
        }
        return flags.contains(name)
    }

    /// Every value of `--name VALUE` given, in order, else the variable's (one value); with where they came from.
    func allValues(named name: String) -> (texts: [String], source: String)? {
        guard let option = spec.option(named: name), option.takesValue else {
            assertionFailure("\(name) is not an option with a value of \(spec.name)")
            return nil
        }
        if let texts = repeated[option.name], !texts.isEmpty { return (texts, option.name) }
        if let variable = option.environment, let text = environment[variable], !text.isEmpty {
            return ([text], variable)
        }
        return nil
    }

    /// The raw value of `--name VALUE`, else of the option's `KURONEKO_…` variable, with where it came from;
    /// an option the command does not declare reads as not given (and stops a debug build, as above).
    func value(_ name: String) -> (text: String, source: String)? {
        guard let option = spec.option(named: name), option.takesValue else {
            assertionFailure("\(name) is not an option with a value of \(spec.name)")
            return nil
        }
        if let text = values[option.name] { return (text, option.name) }
        if let variable = option.environment, let text = environment[variable], !text.isEmpty {
            return (text, variable)
        }
        return nil
    }
}

/// The closest of a few known words to a mistyped one, for "did you mean …?".
enum Suggestion {
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { candidate, distance in
            distance <= max(2, word.count / 3) || (word.count >= 3 && candidate.hasPrefix(word))
        }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Edits (insert, delete, replace) from one word to the other.
    static func distance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
