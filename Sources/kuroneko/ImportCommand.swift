import Foundation
import Kuroneko

/// `kuroneko import FILE.csv`: every number in one column, tracked ten per request, each result written as
/// it arrives in the file's order.
struct ImportCommand: Command {
    static let spec = CommandCatalog.importCSV
    /// The largest file read: tens of thousands of rows, read whole into memory.
    static let maximumBytes = 64 * 1_048_576
    private let path: String
    private let column: String
    private let json: Bool
    private let quiet: Bool
    private let configurations: [TrackingClient.Configuration]
    private let carrier: Carrier?

    private let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.terminal = terminal
        guard arguments.operands.count == 1 else {
            throw .usage(
                "import: expected one FILE.csv, got \(arguments.operands.count); usage: kuroneko import [options] FILE.csv"
            )
        }
        path = arguments.operands[0]
        column = arguments.text("--column") ?? "1"
        json = try arguments.choice("--output") == "json"
        quiet = arguments.flag("--quiet")
        configurations = try ClientOptions.configurations(arguments)
        carrier = try arguments.carrier("--carrier")
    }

    func run() async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= Self.maximumBytes else {
            throw CommandFailure.usage(
                "import: \"\(path)\" is \(size / 1_048_576) MiB; at most \(Self.maximumBytes / 1_048_576) MiB are read (split it)"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.usage("import: \"\(path)\" cannot be read; expected a CSV file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure.usage("import: \"\(path)\" is not UTF-8 text")
        }
        let rows = CSV.rows(text)
        guard let header = rows.first else { throw CommandFailure.usage("import: \"\(path)\" is empty") }
        let index: Int
        var body = rows
        if let number = Int(column) {
            guard number >= 1, number <= header.count else {
                throw CommandFailure.usage("import: --column \(number) is beyond the file's \(header.count) columns")
            }
            index = number - 1
            // A first row whose cell is not a number is a header.
            if (try? TrackingNumber(parsing: header[index])) == nil { body.removeFirst() }
        } else {
            guard let found = header.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == column }) else {
                throw CommandFailure.usage(
                    "import: no column named \"\(column)\"; the header has \(header.joined(separator: ", "))")
            }
            index = found
            body.removeFirst()
        }
        let cells = body.compactMap { $0.count > index ? $0[index] : nil }.filter { !$0.isEmpty }
        let (numbers, skipped) = try NumberInput.validated(cells, carrier: carrier, skipInvalid: true)
        for reason in skipped { terminal.printError("kuroneko: \(reason); skipped") }
        if !json { terminal.print("number,carrier,status_code,status,last_event_at,place,scheduled") }
        let failed = try await OrderedTracking.run(
            numbers, carrier: carrier, configurations: configurations, quiet: quiet, terminal: terminal
        ) { try write($0, on: terminal) }
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }

    private func write(_ shipment: Shipment, on terminal: Terminal) throws {
        if json {
            return terminal.print(String(decoding: try JSONEncoder.kuroneko().encode(shipment), as: UTF8.self))
        }
        let last = shipment.events.last
        terminal.print(
            [
                shipment.trackingNumber.digits, shipment.carrier.rawValue, shipment.status.code.rawValue,
                shipment.status.label,
                last?.at?.iso8601 ?? "", last?.place ?? "", shipment.scheduledDelivery?.raw ?? "",
            ].map(CSV.quoted).joined(separator: ","))
    }
}

/// Just enough CSV (RFC 4180): commas, quoted fields with doubled quotes, CRLF or LF.
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    if let following = iterator.next() {
                        if following == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            handle(following)
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else {
                handle(character)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows

        func handle(_ character: Character) {
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.append(character)
            }
        }
    }

    static func quoted(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
