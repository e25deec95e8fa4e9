import Foundation
import Kuroneko

/// `kuroneko parse FILE`: read a saved tracking page offline.
struct ParseCommand: Command {
    static let spec = CommandCatalog.parse
    private let path: String
    private let now: Date
    private let charset: String?
    private let carrier: Carrier?
    private let output: OutputOptions

    private let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.terminal = terminal
        output = try OutputOptions(from: arguments)
        charset = arguments.text(.charset)
        carrier = try arguments.carrier(.carrier)
        now = try arguments.time(.now) ?? Date()
        let files = arguments.operands
        guard files.count == 1 else {
            throw .usage("parse: expected one FILE, got \(files.count); usage: kuroneko parse [options] FILE")
        }
        path = files[0]
    }

    func run() throws {
        let body: Data
        if path == "-" {
            body = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure.usage("parse: \"\(path)\" does not exist; expected a saved tracking page")
            }
            do {
                body = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CommandFailure.usage("parse: cannot read \"\(path)\": \(Self.reason(error))")
            }
        }
        let shipments: [Shipment]
        do {
            shipments = try CarrierPages.parse(body, carrier: carrier, charset: charset, now: now)
        } catch  where error.code == .unknownCharset {
            throw CommandFailure.usage(
                "parse: --charset \"\(charset ?? "")\" is not a charset libxml2 knows; expected e.g. UTF-8 or Shift_JIS"
            )
        } catch {
            throw CommandFailure.lookup("parse: \(path): \(error.message)")
        }
        var printer = output.printer(on: terminal, streaming: false)
        for shipment in shipments { try printer.print(shipment) }
        try printer.finish()
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let message = strerror(Int32(underlying.code))
        {
            return String(cString: message)
        }
        return nsError.localizedDescription
    }
}
