import Foundation
import Kuroneko

/// Dispatches the command line to a command and turns its failure into a message and an exit code.
struct CommandLineTool {
    let terminal: Terminal

    func run(_ arguments: [String]) async -> ExitStatus {
        do {
            try await dispatch(arguments)
            return .success
        } catch let failure as CommandFailure {
            if !failure.message.isEmpty { terminal.printError("kuroneko: \(failure.message)") }
            return failure.status
        } catch is CancellationError {
            return .lookupFailed
        } catch {
            terminal.printError("kuroneko: \(error)")
            return .lookupFailed
        }
    }

    private func dispatch(_ arguments: [String]) async throws {
        guard let first = arguments.first else {
            terminal.print(HelpText.tool)
            throw CommandFailure.usage("no command given; use 'kuroneko track NUMBER...' or see 'kuroneko --help'")
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            return terminal.print(HelpText.tool)
        case "--version":
            return terminal.print("kuroneko \(KuronekoVersion.version)")
        default:
            break
        }
        guard let spec = CommandCatalog.command(named: first) else {
            let known = CommandCatalog.all.map(\.name)
            let hint = Suggestion.closest(to: first, among: known).map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure.usage(
                "unknown command '\(first)'; \(hint)the commands are \(known.dropLast().joined(separator: ", ")) "
                    + "and \(known.last ?? "")")
        }
        if Self.wantsHelp(rest) { return terminal.print(HelpText.command(spec)) }
        let environment = ProcessInfo.processInfo.environment
        switch spec.name {
        case "track":
            try await TrackCommand(arguments: rest, terminal: terminal).run(on: terminal)
        case "parse":
            try ParseCommand(arguments: rest, terminal: terminal).run(on: terminal)
        case "serve":
            try await ServeCommand(arguments: rest, environment: environment).run(on: terminal)
        case "simulate":
            try await SimulateCommand(arguments: rest).run(on: terminal)
        case "completion":
            try completion(rest)
        case "import":
            try await ImportCommand(arguments: rest, terminal: terminal).run(on: terminal)
        case "db":
            try DatabaseCommand(arguments: rest, terminal: terminal).run()
        case "add", "list", "show", "remove", "refresh", "watch", "keys":
            try await WatchCommands(spec, arguments: rest, terminal: terminal).run()
        default:
            try help(rest)
        }
    }

    private func completion(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ArgumentList(arguments, spec: CommandCatalog.completion)
        guard parsed.operands.count == 1, let script = Completions.script(for: parsed.operands[0]) else {
            let given = parsed.operands.first.map { "'\($0)' is not a shell it knows" } ?? "no shell given"
            throw .usage("completion: \(given); usage: kuroneko completion bash|zsh|fish")
        }
        terminal.print(script)
    }

    private func help(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ArgumentList(arguments, spec: CommandCatalog.help)
        if parsed.flag("--man") {
            try parsed.expectNoOperands()
            return FileHandle.standardOutput.write(Data(ManPage.text.utf8))
        }
        guard let name = parsed.operands.first else { return terminal.print(HelpText.tool) }
        guard let spec = CommandCatalog.command(named: name) else {
            let known = CommandCatalog.all.map(\.name)
            let hint = Suggestion.closest(to: name, among: known).map { "did you mean '\($0)'? " } ?? ""
            throw .usage("help: unknown command '\(name)'; \(hint)the commands are \(known.joined(separator: ", "))")
        }
        terminal.print(HelpText.command(spec))
    }

    /// `-h` or `--help` before any `--`.
    private static func wantsHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }
}
