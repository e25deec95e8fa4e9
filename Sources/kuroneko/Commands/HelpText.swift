import Foundation

/// `--help`, generated from the command descriptions.
enum HelpText {
    private static let width = 100
    private static let optionColumn = 30

    static var tool: String {
        var lines = [
            "kuroneko: Japanese parcel tracking as clean data: Yamato (クロネコヤマト), Sagawa (佐川急便) and Japan Post (日本郵便).", "", "Usage:",
        ]
        let usages = CommandCatalog.all.map { "kuroneko \($0.name) \($0.synopsis)" }
        let column = (usages.map(\.count).max() ?? 0) + 4
        for (usage, command) in zip(usages, CommandCatalog.all) {
            lines.append("  " + usage.padding(toLength: column, withPad: " ", startingAt: 0) + command.summary)
        }
        lines += [
            "", "Options:", "  -h, --help      show this help", "  --version       show the version", "",
            "Exit status: 0 success, 1 upstream or page failure, 2 usage error or invalid number.",
            "Run 'kuroneko COMMAND --help' for a command's options and examples.",
        ]
        return lines.joined(separator: "\n")
    }

    static func command(_ spec: CommandSpec) -> String {
        var lines = ["Usage: kuroneko \(spec.name) \(spec.synopsis)", ""]
        for paragraph in spec.description {
            lines += wrap(paragraph, width: width)
            lines.append("")
        }
        lines.append("Options:")
        for option in spec.options + [.flag("--help", short: "-h", "show this help")] {
            var help = option.help
            if let variable = option.environment { help += " [env \(variable)]" }
            let head = "  " + option.synopsis
            let wrapped = wrap(help, width: width - optionColumn)
            if head.count + 2 <= optionColumn {
                lines.append(head.padding(toLength: optionColumn, withPad: " ", startingAt: 0) + wrapped[0])
            } else {
                lines.append(head)
                lines.append(String(repeating: " ", count: optionColumn) + wrapped[0])
            }
            for rest in wrapped.dropFirst() { lines.append(String(repeating: " ", count: optionColumn) + rest) }
        }
        if !spec.examples.isEmpty {
            lines += ["", "Examples:"]
            for example in spec.examples {
                lines += ["  \(example.command)", "      \(example.explanation)"]
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Breaks text at spaces into lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}
