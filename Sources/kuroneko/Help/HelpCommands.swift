import ArgumentParser
import Foundation

/// `kuroneko completion bash|zsh|fish`: swift-argument-parser's script for the shell, made from the commands'
/// declared options and their values.
struct CompletionCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "completion", usage: "bash|zsh|fish", summary: "print a shell completion script",
        description: ["Prints a script that completes commands, options and option values such as --lang ja|en."],
        examples: [
            ("source <(kuroneko completion bash)", "in ~/.bashrc"),
            ("kuroneko completion zsh > \"${fpath[1]}/_kuroneko\"", "once, for zsh"),
            ("kuroneko completion fish > ~/.config/fish/completions/kuroneko.fish", "once, for fish"),
        ])

    @Argument(help: .about("the shell", value: "SHELL"), completion: .list(["bash", "zsh", "fish"]))
    var shells: [String] = []

    func run(on terminal: Terminal) throws {
        guard shells.count == 1, let shell = CompletionShell(rawValue: shells[0]),
            ["bash", "zsh", "fish"].contains(shells[0])
        else {
            let given = shells.first.map { "'\($0)' is not a shell it knows" } ?? "no shell given"
            throw CommandFailure.usage("completion: \(given); usage: kuroneko completion bash|zsh|fish")
        }
        terminal.print(KuronekoTool.completionScript(for: shell))
    }
}

/// `kuroneko help [COMMAND] [--man]`.
struct HelpCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "help", usage: "[COMMAND] [--man]", summary: "show help for a command, or the man page",
        description: ["Shows a command's help; with --man, prints the manual page in roff."],
        examples: [("kuroneko help --man | man -l -", "read the manual")])

    @Flag(help: "print the manual page (roff) instead") var man = false
    @Argument(help: .about("the command", value: "COMMAND"), completion: .list(KuronekoTool.commandNames))
    var commands: [String] = []

    func run(on terminal: Terminal) throws {
        if man {
            guard commands.isEmpty else {
                throw CommandFailure.usage("help: unexpected argument '\(commands[0])'; --man prints the whole manual")
            }
            return FileHandle.standardOutput.write(Data(ManPage.text.utf8))
        }
        guard let name = commands.first else { return terminal.print(KuronekoTool.helpMessage()) }
        do {
            try CommandLineTool.checkCommand(name)
        } catch {
            throw CommandFailure.usage("help: \(error.message)")
        }
        guard let command = KuronekoTool.configuration.subcommands.first(where: { $0.configuration.commandName == name })
        else { return }
        terminal.print(command.helpMessage())
    }
}
