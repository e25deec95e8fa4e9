import ArgumentParser
import Foundation
import Kuroneko

/// How shipments are printed: a table for people, JSON for programs, or the original app's model
/// (`--format`, `--json`, `--jsonl`, `--lang`, `--no-color`).
struct OutputOptions: ParsableArguments {
    enum Format: String, CaseIterable, ExpressibleByArgument {
        case table, json, jsonl, tneko
    }

    @Option(
        help: .about(
            "table for people (the default), a JSON array, one JSON shipment per line, or the original app's model",
            value: "FORMAT"))
    var format: Format?
    @Flag(help: "the same as --format json") var json = false
    @Flag(help: "the same as --format jsonl") var jsonl = false
    @Option(help: .about("language of the status labels", value: "LANG")) var lang: Language = .japanese
    @Flag(help: "never colour the table (also: NO_COLOR set, or TERM=dumb)") var noColor = false

    var language: Language { lang }

    /// The format chosen by `--format`, `--json` or `--jsonl`, which exclude each other.
    func chosenFormat(command: String) throws(CommandFailure) -> Format {
        if json, jsonl {
            throw .usage("\(command): --json and --jsonl exclude each other; choose one")
        }
        if let format, json || jsonl {
            throw .usage(
                "\(command): --format \(format.rawValue) and \(json ? "--json" : "--jsonl") exclude each "
                    + "other; choose one")
        }
        return format ?? (json ? .json : jsonl ? .jsonl : .table)
    }

    /// A printer for shipments that arrive one at a time, in order.
    /// - Parameter streaming: rows may be printed before every shipment is known (the table then has fixed
    ///   column widths instead of widths fitted to every row).
    func printer(on terminal: Terminal, streaming: Bool, command: String) throws(CommandFailure) -> ShipmentPrinter {
        ShipmentPrinter(
            format: try chosenFormat(command: command),
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
