import ArgumentParser
import Foundation
import Kuroneko

/// `kuroneko track NUMBER...`: look numbers up and print each answer as soon as it, and every answer
/// before it, is known.
struct TrackCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "track", usage: "[options] [NUMBER...]", summary: "look numbers up at their carriers",
        description: [
            "Looks the numbers up at their carriers (" + CarrierRegistry.formsInWords + "; or the one --carrier "
                + "names), ten per request where the carrier's site takes ten, and prints each answer in the order given as soon as "
                + "it and every answer before it are known. Numbers may be typed with hyphens, spaces or full-width "
                + "digits. With no NUMBER and standard input not a terminal, or with '-', numbers are read from "
                + "standard input, one per line or separated by commas; blank lines and # comments are ignored.",
            "While numbers are outstanding, progress is shown on standard error when it is a terminal (not with "
                + "--quiet). A number whose request failed after its retries is reported on standard error, one line "
                + "each; every other answer is still printed, and the exit status is 1. Invalid numbers stop the run "
                + "before anything is sent (exit status 2), unless --skip-invalid is given.",
        ],
        examples: [
            ("kuroneko track 3277-5445-9830", "one number, as a table"),
            ("kuroneko track --jsonl 3277-5445-9830 1234-5678-9012", "one JSON shipment per line, as they arrive"),
            ("cat numbers.txt | kuroneko track --lang en", "numbers from a file, English labels"),
        ])

    @OptionGroup var output: OutputOptions
    @Option(help: .carrierLookup) var carrier: Carrier?
    @OptionGroup var client: ClientFlags
    @Flag(help: "report invalid numbers on standard error and track the rest") var skipInvalid = false
    @Flag(name: .shortAndLong, help: .quiet) var quiet = false
    @Argument(help: .about("tracking numbers; '-' reads them from standard input", value: "NUMBER"))
    var numbers: [String] = []

    func run(on terminal: Terminal) async throws {
        let configurations = try client.configurations(reader(terminal))
        var printer = try output.printer(on: terminal, streaming: true, command: name)
        // Nothing on the command line and something piped in: the numbers come from standard input.
        let operands = numbers.isEmpty && !terminal.inputIsTerminal ? ["-"] : numbers
        let inputs = try NumberInput.expandingStandardInput(operands)
        guard !inputs.isEmpty else {
            throw CommandFailure.usage(
                "track: no tracking number given; usage: kuroneko track NUMBER... (or pipe numbers in, one per line)")
        }
        let (numbers, skipped) = try NumberInput.validated(inputs, carrier: carrier, skipInvalid: skipInvalid)
        for reason in skipped { terminal.printError("kuroneko: \(reason); skipped") }
        let failed = try await OrderedTracking.run(
            numbers, carrier: carrier, configurations: configurations, quiet: quiet, terminal: terminal
        ) { try printer.print($0) }
        try printer.finish()
        if failed > 0 { throw CommandFailure.reported(.lookupFailed) }
    }
}

/// Numbers as people give them: arguments, or lines on standard input.
enum NumberInput {
    /// Replaces `-` by the numbers on standard input: one per line or separated by commas; blank lines and
    /// `#` comments (to the end of the line) are ignored.
    static func expandingStandardInput(_ inputs: [String]) throws(CommandFailure) -> [String] {
        guard inputs.contains("-") else { return inputs }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(data: data, encoding: .utf8) else {
            throw .usage("track: standard input is not UTF-8 text")
        }
        let fromInput = numbers(inText: text)
        return inputs.flatMap { $0 == "-" ? fromInput : [$0] }
    }

    static func numbers(inText text: String) -> [String] {
        text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).flatMap { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return content.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// Every number parsed; invalid ones either stop the run with one line naming each, or (skipping) are
    /// left out with their reasons.
    static func validated(_ inputs: [String], carrier: Carrier? = nil, skipInvalid: Bool) throws(CommandFailure)
        -> (numbers: [TrackingNumber], skipped: [String])
    {
        var numbers: [TrackingNumber] = []
        var problems: [String] = []
        for input in inputs {
            do {
                if let carrier {
                    numbers.append(try TrackingNumber(parsing: input, for: carrier))
                } else {
                    numbers.append(try TrackingNumber(parsing: input))
                }
            } catch {
                problems.append(error.description)
            }
        }
        if problems.isEmpty || (skipInvalid && !numbers.isEmpty) { return (numbers, problems) }
        let noun = problems.count == 1 ? "invalid tracking number" : "\(problems.count) invalid tracking numbers"
        let ending = skipInvalid ? "; no valid number is left, nothing was sent" : "; nothing was sent"
        throw .usage("track: \(noun): " + problems.joined(separator: "; ") + ending)
    }
}
