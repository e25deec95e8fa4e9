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
            terminal.printError("kuroneko: \(failure.message)")
            return failure.status
        } catch {
            terminal.printError("kuroneko: \(error)")
            return .lookupFailed
        }
    }

    private func dispatch(_ arguments: [String]) async throws {
        guard let first = arguments.first else {
            terminal.print(Help.tool)
            throw CommandFailure.usage("no command given; use 'kuroneko track NUMBER...' or see 'kuroneko --help'")
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            terminal.print(Help.tool)
        case "--version":
            terminal.print("kuroneko \(Kuroneko.version)")
        case "help":
            terminal.print(try Help.text(for: rest.first))
        case "track":
            if wantsHelp(rest) { return terminal.print(Help.track) }
            try await TrackCommand(arguments: rest).run(on: terminal)
        case "parse":
            if wantsHelp(rest) { return terminal.print(Help.parse) }
            try ParseCommand(arguments: rest).run(on: terminal)
        case "serve":
            if wantsHelp(rest) { return terminal.print(Help.serve) }
            try await ServeCommand(arguments: rest, environment: ProcessInfo.processInfo.environment).run(on: terminal)
        case "simulate":
            if wantsHelp(rest) { return terminal.print(Help.simulate) }
            try await SimulateCommand(arguments: rest).run(on: terminal)
        default:
            throw CommandFailure.usage(
                "unknown command '\(first)'; the commands are track, parse, serve, simulate and help")
        }
    }

    private func wantsHelp(_ arguments: [String]) -> Bool {
        arguments.contains("--help") || arguments.contains("-h")
    }
}
