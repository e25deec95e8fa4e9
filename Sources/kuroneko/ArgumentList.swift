/// The arguments of one command, consumed option by option.
struct ArgumentList {
    private var remaining: [String]
    /// The command's name, for messages.
    let command: String
    /// The environment, for settings that may also come from `KURONEKO_…` variables.
    let environment: [String: String]

    init(_ arguments: [String], command: String, environment: [String: String] = [:]) {
        remaining = arguments
        self.command = command
        self.environment = environment
    }

    /// Removes a flag wherever it stands; true if it was there.
    mutating func flag(_ names: String...) -> Bool {
        let before = remaining.count
        remaining.removeAll { names.contains($0) }
        return remaining.count != before
    }

    /// Removes `--name VALUE` or `--name=VALUE`; the value, or `nil` when the option is absent.
    mutating func option(_ name: String) throws(CommandFailure) -> String? {
        var value: String?
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            if argument == name {
                guard index + 1 < remaining.count else {
                    throw .usage("\(command): option \(name) needs a value; see 'kuroneko \(command) --help'")
                }
                value = remaining[index + 1]
                remaining.removeSubrange(index...index + 1)
            } else if argument.hasPrefix(name + "=") {
                value = String(argument.dropFirst(name.count + 1))
                remaining.remove(at: index)
            } else {
                index += 1
            }
        }
        return value
    }

    /// What is left after the options, refusing anything that still looks like an option.
    func positionals() throws(CommandFailure) -> [String] {
        if let unknown = remaining.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw .usage("\(command): unknown option '\(unknown)'; see 'kuroneko \(command) --help'")
        }
        return remaining
    }
}
