import ArgumentParser
import Foundation
import Kuroneko

/// A command of the tool: parsed by swift-argument-parser from its declared options, then run with the
/// terminal (and so the environment its `KURONEKO_…` settings are read from).
protocol ToolCommand: ParsableCommand {
    func run(on terminal: Terminal) async throws
}

extension ToolCommand {
    /// The command's name, for messages.
    static var name: String { configuration.commandName ?? "" }
    var name: String { Self.name }

    /// Reads this command's settings from the terminal's environment.
    func reader(_ terminal: Terminal) -> OptionReader {
        OptionReader(command: name, environment: terminal.environment)
    }
}

/// The tool: every command, with the tool's version and exit statuses.
struct KuronekoTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kuroneko",
        abstract:
            "Japanese parcel tracking as clean data: Yamato (クロネコヤマト), Sagawa (佐川急便) and Japan Post (日本郵便).",
        discussion: """
            Exit status: 0 success, 1 upstream or page failure, 2 usage error or invalid number.
            Run 'kuroneko COMMAND --help' for a command's options and examples.
            """,
        version: "kuroneko \(KuronekoVersion.version)",
        subcommands: [
            TrackCommand.self, ParseCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self,
            RemoveCommand.self, RefreshCommand.self, WatchCommand.self, ImportCommand.self, IntakeCommand.self,
            KeysCommand.self, ChannelsCommand.self, NotifyTestCommand.self, PagesCommand.self, NoticesCommand.self,
            UsersCommand.self, ListsCommand.self, DatabaseCommand.self, ServeCommand.self, SimulateCommand.self,
            CompletionCommand.self, HelpCommand.self,
        ],
        helpNames: [.short, .long])

    /// The commands' names, in the order help lists them.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName }
    }
}

/// Reads the command line into a command, runs it, and turns its failure into a message and an exit code.
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
            terminal.print(KuronekoTool.helpMessage())
            throw CommandFailure.usage("no command given; use 'kuroneko track NUMBER...' or see 'kuroneko --help'")
        }
        if !first.hasPrefix("-") { try Self.checkCommand(first) }
        var parsed: any ParsableCommand
        do {
            parsed = try KuronekoTool.parseAsRoot(arguments)
        } catch {
            return try answer(error, command: first)
        }
        guard let command = parsed as? any ToolCommand else {
            // swift-argument-parser's own commands (a command's help) run as it runs them, and end in an answer.
            do {
                try parsed.run()
            } catch {
                try answer(error, command: first)
            }
            return
        }
        try await command.run(on: terminal)
    }

    /// What swift-argument-parser ended with: --help, --version and the completion scripts' requests print their
    /// text; anything else is a usage error, named by the command it is about as the commands' own messages are.
    private func answer(_ error: any Error, command: String) throws(CommandFailure) {
        if KuronekoTool.exitCode(for: error) == .success {
            return terminal.print(KuronekoTool.fullMessage(for: error))
        }
        let named = KuronekoTool.commandNames.contains(command) ? "\(command): " : ""
        throw .usage(named + Self.oneLine(KuronekoTool.message(for: error)))
    }

    /// A command that does not exist, named with the closest one that does.
    static func checkCommand(_ name: String) throws(CommandFailure) {
        let known = KuronekoTool.commandNames
        guard !known.contains(name) else { return }
        let hint = Suggestion.closest(to: name, among: known).map { "did you mean '\($0)'? " } ?? ""
        throw .usage(
            "unknown command '\(name)'; \(hint)the commands are \(known.dropLast().joined(separator: ", ")) "
                + "and \(known.last ?? "")")
    }

    /// swift-argument-parser's message on one line, its usage hint after it.
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
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
