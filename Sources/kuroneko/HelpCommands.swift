import Foundation

/// `kuroneko completion bash|zsh|fish`.
struct CompletionCommand: ArgumentsCommand {
    static let spec = CommandCatalog.completion
    let arguments: ArgumentList
    let terminal: Terminal

    func run() throws(CommandFailure) {
        guard arguments.operands.count == 1, let script = Completions.script(for: arguments.operands[0]) else {
            let given = arguments.operands.first.map { "'\($0)' is not a shell it knows" } ?? "no shell given"
            throw .usage("completion: \(given); usage: kuroneko completion bash|zsh|fish")
        }
        terminal.print(script)
    }
}

/// `kuroneko help [COMMAND] [--man]`.
struct HelpCommand: ArgumentsCommand {
    static let spec = CommandCatalog.help
    let arguments: ArgumentList
    let terminal: Terminal

    func run() throws(CommandFailure) {
        if arguments.flag(.man) {
            try arguments.expectNoOperands()
            return FileHandle.standardOutput.write(Data(ManPage.text.utf8))
        }
        guard let name = arguments.operands.first else { return terminal.print(HelpText.tool) }
        guard let command = CommandCatalog.command(named: name) else {
            let known = CommandCatalog.all.map(\.name)
            let hint = Suggestion.closest(to: name, among: known).map { "did you mean '\($0)'? " } ?? ""
            throw .usage("help: unknown command '\(name)'; \(hint)the commands are \(known.joined(separator: ", "))")
        }
        terminal.print(HelpText.command(command.spec))
    }
}
