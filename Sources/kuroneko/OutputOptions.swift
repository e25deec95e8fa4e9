import Foundation
import Kuroneko

/// How shipments are printed: a table for people, JSON for programs, or the original app's model.
struct OutputOptions {
    enum Format: String {
        case table, json, jsonl, tneko
    }

    enum Language: String {
        case japanese = "ja", english = "en"
    }

    let format: Format
    let language: Language
    /// `--no-color` was given.
    let noColor: Bool

    /// Reads `--format`, `--json`, `--jsonl`, `--lang` and `--no-color`.
    init(from arguments: ArgumentList) throws(CommandFailure) {
        let json = arguments.flag(.json)
        let jsonLines = arguments.flag(.jsonl)
        let chosen = try arguments.choice(.format).flatMap(Format.init(rawValue:))
        if json, jsonLines {
            throw .usage("\(arguments.command): --json and --jsonl exclude each other; choose one")
        }
        if let chosen, json || jsonLines {
            throw .usage(
                "\(arguments.command): --format \(chosen.rawValue) and \(json ? "--json" : "--jsonl") exclude each "
                    + "other; choose one")
        }
        format = chosen ?? (json ? .json : jsonLines ? .jsonl : .table)
        language = try arguments.choice(.lang).flatMap(Language.init(rawValue:)) ?? .japanese
        noColor = arguments.flag(.noColor)
    }

    /// A printer for shipments that arrive one at a time, in order.
    /// - Parameter streaming: rows may be printed before every shipment is known (the table then has fixed
    ///   column widths instead of widths fitted to every row).
    func printer(on terminal: Terminal, streaming: Bool) -> ShipmentPrinter {
        ShipmentPrinter(
            format: format,
            table: ShipmentTable(
                language: language, colored: terminal.usesColor(unlessTurnedOff: noColor), columns: terminal.columns),
            streaming: streaming, terminal: terminal)
    }
}

/// Prints shipments in order as they are handed over: table rows and JSON lines at once, a JSON array or
/// the original app's model when all are in.
struct ShipmentPrinter {
    let format: OutputOptions.Format
    let table: ShipmentTable
    let streaming: Bool
    let terminal: Terminal
    private var held: [Shipment] = []
    private var printedHeader = false

    init(format: OutputOptions.Format, table: ShipmentTable, streaming: Bool, terminal: Terminal) {
        self.format = format
        self.table = table
        self.streaming = streaming
        self.terminal = terminal
    }

    mutating func print(_ shipment: Shipment) throws {
        switch format {
        case .table where streaming:
            if !printedHeader {
                terminal.print(table.header(widths: table.streamingWidths, cut: true))
                printedHeader = true
            }
            terminal.print(table.row(for: shipment, widths: table.streamingWidths, cut: true))
        case .jsonl:
            terminal.print(String(decoding: try JSONEncoder.kuroneko().encode(shipment), as: UTF8.self))
        case .table, .json, .tneko:
            held.append(shipment)
        }
    }

    /// Prints what waited for the end.
    func finish() throws {
        switch format {
        case .table where !streaming:
            terminal.print(table.text(for: held))
        case .json:
            let encoder = JSONEncoder.kuroneko(prettyPrinted: true)
            terminal.print(String(decoding: try encoder.encode(held), as: UTF8.self))
        case .tneko:
            let encoder = JSONEncoder.kuroneko(prettyPrinted: true)
            terminal.print(String(decoding: try encoder.encode(TnekoModel(held)), as: UTF8.self))
        case .table, .jsonl:
            break
        }
    }
}
