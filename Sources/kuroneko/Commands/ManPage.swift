import Kuroneko

/// `kuroneko help --man`: the manual page in roff (man(7) macros), generated from the command
/// descriptions; committed as docs/man/kuroneko.1.
enum ManPage {
    static var text: String {
        var lines = [
            ".TH KURONEKO 1 \"\" \"kuroneko \(KuronekoVersion.version)\" \"User Commands\"",
            ".SH NAME",
            "kuroneko \\- Japanese parcel tracking (Yamato, Sagawa, Japan Post) as clean data",
            ".SH SYNOPSIS",
        ]
        for spec in CommandCatalog.all {
            lines += [".B kuroneko \(spec.name)", escape(spec.synopsis), ".br"]
        }
        lines += [
            ".SH DESCRIPTION",
            "Looks parcels up on the tracking pages of Yamato Transport, Sagawa Express and Japan Post, which have "
                + "no public API, and turns their answers into typed data: a table for people, JSON for programs, a REST API, and a stand-in "
                + "page for tests.",
            ".SH COMMANDS",
        ]
        for spec in CommandCatalog.all {
            lines.append(".SS \"kuroneko \(spec.name) \(escape(spec.synopsis))\"")
            for (index, paragraph) in spec.description.enumerated() {
                if index > 0 { lines.append(".PP") }
                lines.append(escape(paragraph))
            }
            for option in spec.options + [.flag("--help", short: "-h", "show this help")] {
                lines.append(".TP")
                var head = "\\fB\(escape(option.short.map { "\($0), \(option.name)" } ?? option.name))\\fR"
                if let value = option.value {
                    let shown = option.choices.isEmpty ? value : option.choices.joined(separator: "|")
                    head += " \\fI\(escape(shown))\\fR"
                }
                lines.append(head)
                var help = option.help
                if let variable = option.environment { help += "; also " + variable }
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
            ".TP",
            ".B KURONEKO_ENDPOINT\\fR, \\fBKURONEKO_TIMEOUT",
            "The tracking form and the request timeout, for \\fBtrack\\fR and \\fBserve\\fR.",
            ".PP",
            "Every option of \\fBserve\\fR has a variable of its own, named beside it above.",
            ".SH EXIT STATUS",
            ".TP", "0", "Success.",
            ".TP", "1", "Yamato could not be reached, answered an error, or answered a page that cannot be read.",
            ".TP", "2", "The command line or a tracking number was wrong; nothing was sent.",
            ".SH EXAMPLES",
        ]
        for spec in CommandCatalog.all {
            for example in spec.examples {
                lines += [".TP", ".B \(escape(example.command))", escape(example.explanation) + "."]
            }
        }
        lines += [".SH SEE ALSO", "The project's README and docs/ (SCHEMA.md, ARCHITECTURE.md)."]
        return lines.joined(separator: "\n") + "\n"
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
