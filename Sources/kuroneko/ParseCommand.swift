import ArgumentParser
import Foundation
import Kuroneko

/// `kuroneko parse FILE`: read a saved tracking page offline.
struct ParseCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "parse", usage: "[options] FILE", summary: "read a saved tracking page offline",
        description: [
            "Parses a saved tracking result page (as served by /cgi-bin/tneko) and prints its shipments exactly as "
                + "track would. '-' reads the page from standard input."
        ],
        examples: [
            ("kuroneko parse page.html --now 2026-10-30T12:00:00+09:00", "a page saved on 30 October 2026"),
            ("curl -s -d number00=1 -d number01=327754459830 URL | kuroneko parse -", "a page from standard input"),
        ])

    @OptionGroup var output: OutputOptions
    @Option(
        help: .about(
            "when the page was fetched, ISO 8601 (e.g. 2026-10-30T12:00:00+09:00); year-less dates are resolved "
                + "against it (default: now)", value: "TIME"))
    var now: String?
    @Option(help: .about("the page's charset, when its <meta> tag is missing or wrong", value: "NAME"))
    var charset: String?
    @Option(help: .about("whose page it is (default: found from the page)", value: "CARRIER"))
    var carrier: Carrier?
    @Argument(help: .about("the saved page, or - for standard input", value: "FILE"))
    var files: [String] = []

    func run(on terminal: Terminal) throws {
        let now = try reader(terminal).time(now, Setting("--now")) ?? Date()
        guard files.count == 1 else {
            throw CommandFailure.usage(
                "parse: expected one FILE, got \(files.count); usage: kuroneko parse [options] FILE")
        }
        let path = files[0]
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
        var printer = try output.printer(on: terminal, streaming: false, command: name)
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
