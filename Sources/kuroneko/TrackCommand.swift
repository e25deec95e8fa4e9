import Foundation
import Kuroneko

/// `kuroneko track NUMBER...`: look numbers up and print each answer as soon as it, and every answer
/// before it, is known.
struct TrackCommand: Command {
    static let spec = CommandCatalog.track
    private let numbers: [TrackingNumber]
    /// Why each invalid number was left out (with `--skip-invalid`).
    private let skipped: [String]
    private let output: OutputOptions
    private let configurations: [TrackingClient.Configuration]
    private let carrier: Carrier?
    private let quiet: Bool

    private let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.terminal = terminal
        output = try OutputOptions(from: arguments)
        configurations = try ClientOptions.configurations(arguments)
        carrier = try arguments.carrier(.carrier)
        quiet = arguments.flag(.quiet)
        // Nothing on the command line and something piped in: the numbers come from standard input.
        let operands = arguments.operands.isEmpty && !terminal.inputIsTerminal ? ["-"] : arguments.operands
        let inputs = try NumberInput.expandingStandardInput(operands)
        guard !inputs.isEmpty else {
            throw .usage(
                "track: no tracking number given; usage: kuroneko track NUMBER... (or pipe numbers in, one per line)")
        }
        (numbers, skipped) = try NumberInput.validated(
            inputs, carrier: carrier, skipInvalid: arguments.flag(.skipInvalid))
    }

    func run() async throws {
        for reason in skipped { terminal.printError("kuroneko: \(reason); skipped") }
        var printer = output.printer(on: terminal, streaming: true)
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
