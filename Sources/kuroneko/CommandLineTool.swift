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
        guard let command = CommandCatalog.command(named: first) else {
            let known = CommandCatalog.all.map(\.name)
            let hint = Suggestion.closest(to: first, among: known).map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure.usage(
                "unknown command '\(first)'; \(hint)the commands are \(known.dropLast().joined(separator: ", ")) "
                    + "and \(known.last ?? "")")
        }
        if Self.wantsHelp(rest) { return terminal.print(HelpText.command(command.spec)) }
        let arguments = try ArgumentList(rest, spec: command.spec, environment: terminal.environment)
        try await command.init(arguments, terminal: terminal).run()
    }

    /// `-h` or `--help` before any `--`.
    private static func wantsHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }
}
