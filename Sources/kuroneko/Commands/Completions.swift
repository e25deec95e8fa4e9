import Foundation

/// `kuroneko completion bash|zsh|fish`: completion scripts generated from the command descriptions.
enum Completions {
    static let shells = ["bash", "zsh", "fish"]

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: nil
        }
    }

    private static var commandNames: String { CommandCatalog.all.map(\.name).joined(separator: " ") }

    /// What a command's operands complete to, as words (`nil`: files, or nothing to offer).
    private static func operandWords(_ spec: CommandSpec) -> String? {
        switch spec.operands {
        case .command: CommandCatalog.all.map(\.name).filter { $0 != "help" }.joined(separator: " ")
        case .shell: shells.joined(separator: " ")
        case .choices(let words): words.joined(separator: " ")
        case .none, .numbers, .file: nil
        }
    }

    // MARK: bash

    static var bash: String {
        var lines = [
            "# kuroneko completion for bash; load with: source <(kuroneko completion bash)",
            "_kuroneko() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
            "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
            "        COMPREPLY=($(compgen -W \"\(commandNames) --help --version\" -- \"$cur\"))",
            "        return",
            "    fi",
            "    case \"${COMP_WORDS[1]}\" in",
        ]
        for spec in CommandCatalog.all {
            lines.append("    \(spec.name))")
            let valued = spec.options.filter(\.takesValue)
            if !valued.isEmpty {
                lines.append("        case \"$prev\" in")
                for option in valued {
                    if option.choices.isEmpty {
                        lines.append("            \(option.name)) return ;;")
                    } else {
                        let words = option.choices.joined(separator: " ")
                        lines.append(
                            "            \(option.name)) COMPREPLY=($(compgen -W \"\(words)\" -- \"$cur\")); return ;;")
                    }
                }
                lines.append("        esac")
            }
            let flags = (spec.options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) } + ["--help"])
                .joined(separator: " ")
            lines.append("        if [[ \"$cur\" == -* ]]; then")
            lines.append("            COMPREPLY=($(compgen -W \"\(flags)\" -- \"$cur\"))")
            switch (spec.operands, operandWords(spec)) {
            case (.file, _):
                lines.append("        else")
                lines.append("            COMPREPLY=($(compgen -f -- \"$cur\"))")
            case (_, let words?):
                lines.append("        else")
                lines.append("            COMPREPLY=($(compgen -W \"\(words)\" -- \"$cur\"))")
            default:
                break
            }
            lines.append("        fi")
            lines.append("        ;;")
        }
        lines += ["    esac", "}", "complete -F _kuroneko kuroneko"]
        return lines.joined(separator: "\n")
    }

    // MARK: zsh

    /// Text safe inside a zsh `_arguments` spec in single quotes: no quotes, brackets or colons.
    private static func zshText(_ text: String) -> String {
        String(
            text.map { character -> Character in
                switch character {
                case "'", "[", "]", ":", "\\", "`", "$": " "
                default: character
                }
            })
    }

    static var zsh: String {
        var lines = [
            "#compdef kuroneko",
            "# kuroneko completion for zsh; save as _kuroneko in a directory of $fpath, or load with:",
            "# source <(kuroneko completion zsh)",
            "_kuroneko() {",
            "    local -a commands",
            "    commands=(",
        ]
        for spec in CommandCatalog.all {
            lines.append("        '\(spec.name):\(zshText(spec.summary))'")
        }
        lines += [
            "    )",
            "    if (( CURRENT == 2 )); then",
            "        _describe 'command' commands",
            "        return",
            "    fi",
            "    case $words[2] in",
        ]
        for spec in CommandCatalog.all {
            var arguments: [String] = []
            for option in spec.options + [.flag("--help", short: "-h", "show this help")] {
                let names = option.short.map { "{\($0),\(option.name)}" } ?? option.name
                let help = "[\(zshText(option.help))]"
                let quotedNames = option.short == nil ? "'\(names)\(help)" : "\(names)'\(help)"
                if let value = option.value {
                    let action = option.choices.isEmpty ? "" : "(\(option.choices.joined(separator: " ")))"
                    arguments.append(quotedNames + ":\(value.lowercased()):\(action)'")
                } else {
                    arguments.append(quotedNames + "'")
                }
            }
            switch (spec.operands, operandWords(spec)) {
            case (.file, _): arguments.append("'*:file:_files'")
            case (_, let words?): arguments.append("'*:argument:(\(words))'")
            case (.numbers, _): arguments.append("'*:tracking number:'")
            default: break
            }
            lines.append("        \(spec.name))")
            lines.append("            _arguments \\")
            for (index, argument) in arguments.enumerated() {
                lines.append("                \(argument)" + (index == arguments.count - 1 ? "" : " \\"))
            }
            lines.append("            ;;")
        }
        lines += [
            "    esac",
            "}",
            "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then",
            "    _kuroneko \"$@\"",
            "else",
            "    compdef _kuroneko kuroneko",
            "fi",
        ]
        return lines.joined(separator: "\n")
    }

    // MARK: fish

    private static func fishText(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static var fish: String {
        var lines = [
            "# kuroneko completion for fish; save as ~/.config/fish/completions/kuroneko.fish, or load with:",
            "# kuroneko completion fish | source",
            "complete -c kuroneko -f",
        ]
        for spec in CommandCatalog.all {
            lines.append(
                "complete -c kuroneko -n __fish_use_subcommand -a \(spec.name) -d \(fishText(spec.summary))")
        }
        for spec in CommandCatalog.all {
            let condition = "-n '__fish_seen_subcommand_from \(spec.name)'"
            for option in spec.options {
                var line = "complete -c kuroneko \(condition) -l \(option.name.dropFirst(2))"
                if let short = option.short { line += " -s \(short.dropFirst())" }
                if option.takesValue {
                    line += option.choices.isEmpty ? " -r" : " -x -a \(fishText(option.choices.joined(separator: " ")))"
                }
                lines.append(line + " -d \(fishText(option.help))")
            }
            switch (spec.operands, operandWords(spec)) {
            case (.file, _): lines.append("complete -c kuroneko \(condition) -F")
            case (_, let words?): lines.append("complete -c kuroneko \(condition) -a \(fishText(words))")
            default: break
            }
        }
        return lines.joined(separator: "\n")
    }
}
