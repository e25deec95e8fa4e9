import ArgumentParser
import Foundation
import Kuroneko

/// `kuroneko help --man`: the manual page in roff (man(7) macros), written from the help data
/// swift-argument-parser has of the commands (`--experimental-dump-help`); committed as docs/man/kuroneko.1.
enum ManPage {
    /// What the page reads of the help data.
    struct Tool: Decodable {
        let command: Command
    }

    struct Command: Decodable {
        let commandName: String
        let abstract: String?
        let discussion: String?
        let subcommands: [Command]?
        let arguments: [Argument]?
    }

    struct Argument: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }

        let kind: String
        let shouldDisplay: Bool
        let names: [Name]?
        let valueName: String?
        let defaultValue: String?
        let allValues: [String]?
        let abstract: String?

        /// `-q, --quiet`, `--lang`.
        var shownNames: String {
            (names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }.joined(separator: ", ")
        }
    }

    static var text: String {
        let tool = (try? JSONDecoder().decode(Tool.self, from: Data(helpData.utf8)))?.command
        // The tool's own commands, each once (swift-argument-parser adds a `help` of its own after ours).
        var seen: Set<String> = []
        let commands = (tool?.subcommands ?? []).filter { seen.insert($0.commandName).inserted }
        let usages = Dictionary(
            KuronekoTool.configuration.subcommands.compactMap { type in
                type.configuration.commandName.map { ($0, type.configuration.usage ?? "kuroneko \($0)") }
            }
        ) { first, _ in first }
        var lines = [
            ".TH KURONEKO 1 \"\" \"kuroneko \(KuronekoVersion.version)\" \"User Commands\"",
            ".SH NAME",
            "kuroneko \\- Japanese parcel tracking (Yamato, Sagawa, Japan Post) as clean data",
            ".SH SYNOPSIS",
        ]
        for command in commands {
            lines += [".B " + escape(usages[command.commandName] ?? "kuroneko \(command.commandName)"), ".br"]
        }
        lines += [
            ".SH DESCRIPTION",
            "Looks parcels up on the tracking pages of Yamato Transport, Sagawa Express and Japan Post, which have "
                + "no public API, and turns their answers into typed data: a table for people, JSON for programs, a REST API, and a stand-in "
                + "page for tests.",
            ".SH COMMANDS",
        ]
        for command in commands {
            lines.append(".SS \"\(escape(usages[command.commandName] ?? command.commandName))\"")
            if let abstract = command.abstract { lines.append(escape(abstract) + (abstract.hasSuffix(".") ? "" : ".")) }
            for paragraph in (command.discussion ?? "").components(separatedBy: "\n\n") where !paragraph.isEmpty {
                lines.append(".PP")
                if paragraph.contains("\n") {
                    lines += [".nf"] + paragraph.split(separator: "\n").map { escape(String($0)) } + [".fi"]
                } else {
                    lines.append(escape(paragraph))
                }
            }
            for argument in command.arguments ?? [] where argument.shouldDisplay && argument.kind != "positional" {
                lines.append(".TP")
                var head = "\\fB\(escape(argument.shownNames))\\fR"
                if argument.kind == "option" {
                    let value = argument.allValues.map { $0.joined(separator: "|") } ?? argument.valueName ?? "VALUE"
                    head += " \\fI\(escape(value))\\fR"
                }
                lines.append(head)
                var help = argument.abstract ?? ""
                if let value = argument.defaultValue { help += " (default \(value))" }
                lines.append(escape(help) + ".")
            }
        }
        lines += [
            ".SH ENVIRONMENT",
            ".TP",
            ".B NO_COLOR",
            "When set and not empty, tables are not coloured.",
            ".TP",
            ".B TERM",
            "When \\fBdumb\\fR, tables are not coloured.",
            ".PP",
            "An option with a variable names it beside it above, as [env KURONEKO_…]; the option wins over the variable.",
            ".SH EXIT STATUS",
            ".TP", "0", "Success.",
            ".TP", "1", "A carrier could not be reached, answered an error, or answered a page that cannot be read.",
            ".TP", "2", "The command line or a tracking number was wrong; nothing was sent.",
            ".SH SEE ALSO",
            "The project's README and docs/ (SCHEMA.md, ARCHITECTURE.md).",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The help data swift-argument-parser writes for `--experimental-dump-help` (what its generate-manual
    /// plugin reads), asked of it as a command line would.
    static var helpData: String {
        do {
            _ = try KuronekoTool.parseAsRoot(["--experimental-dump-help"])
            return ""
        } catch {
            return KuronekoTool.fullMessage(for: error)
        }
    }

    /// Text safe in roff: backslashes and hyphens escaped, and no line starting with a control character.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default: escaped.append(character)
            }
        }
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
