import Foundation
import Kuroneko

/// How shipments are printed: a table for people, or JSON for programs.
struct OutputOptions {
    enum Format {
        case table, json, jsonLines
    }

    enum Language: String {
        case japanese = "ja", english = "en"
    }

    let format: Format
    let language: Language

    /// Reads `--json`, `--jsonl` and `--lang` from a command's arguments.
    init(from arguments: inout ArgumentList, command: String) throws(CommandFailure) {
        let json = arguments.flag("--json")
        let jsonLines = arguments.flag("--jsonl")
        if json, jsonLines {
            throw .usage("\(command): --json and --jsonl exclude each other; choose one")
        }
        format = json ? .json : jsonLines ? .jsonLines : .table
        let lang = try arguments.option("--lang") ?? "ja"
        guard let language = Language(rawValue: lang) else {
            throw .usage("\(command): --lang \"\(lang)\" is not supported; use ja or en")
        }
        self.language = language
    }

    func render(_ shipments: [Shipment], on terminal: Terminal) throws {
        switch format {
        case .table:
            terminal.print(ShipmentTable(shipments: shipments, language: language, colored: terminal.usesColor).text)
        case .json:
            let encoder = JSONEncoder.kuroneko(prettyPrinted: true)
            terminal.print(String(decoding: try encoder.encode(shipments), as: UTF8.self))
        case .jsonLines:
            let encoder = JSONEncoder.kuroneko()
            for shipment in shipments {
                terminal.print(String(decoding: try encoder.encode(shipment), as: UTF8.self))
            }
        }
    }
}
