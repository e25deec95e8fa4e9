import Foundation
import Kuroneko

/// `kuroneko track NUMBER...`: look numbers up and print them.
struct TrackCommand {
    private let numbers: [TrackingNumber]
    private let output: OutputOptions
    private let configuration: TrackingClient.Configuration

    init(arguments: [String]) throws(CommandFailure) {
        var arguments = ArgumentList(arguments, command: "track")
        output = try OutputOptions(from: &arguments, command: "track")
        var configuration = TrackingClient.Configuration()
        configuration.endpoint = try arguments.endpoint("--endpoint") ?? configuration.endpoint
        configuration.requestTimeout = try arguments.seconds("--timeout", in: 0.1...600) ?? configuration.requestTimeout
        self.configuration = configuration
        let inputs = try Self.expandStandardInput(try arguments.positionals())
        guard !inputs.isEmpty else {
            throw .usage("track: no tracking number given; usage: kuroneko track NUMBER...")
        }
        numbers = try Self.validated(inputs)
    }

    func run(on terminal: Terminal) async throws {
        let shipments: [Shipment]
        do {
            shipments = try await TrackingClient(configuration: configuration).track(numbers)
        } catch let error as TrackingError {
            throw CommandFailure.lookup(error.message)
        }
        try output.render(shipments, on: terminal)
    }

    /// Replaces `-` by the numbers on standard input: one per line, or separated by commas.
    private static func expandStandardInput(_ inputs: [String]) throws(CommandFailure) -> [String] {
        guard inputs.contains("-") else { return inputs }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(data: data, encoding: .utf8) else {
            throw .usage("track: standard input is not UTF-8 text")
        }
        let fromInput = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return inputs.flatMap { $0 == "-" ? fromInput : [$0] }
    }

    /// Every number parsed, or one line naming each bad input and what is wrong with it.
    private static func validated(_ inputs: [String]) throws(CommandFailure) -> [TrackingNumber] {
        var numbers: [TrackingNumber] = []
        var problems: [String] = []
        for input in inputs {
            do {
                numbers.append(try TrackingNumber(parsing: input))
            } catch {
                problems.append(error.description)
            }
        }
        guard problems.isEmpty else {
            let noun = problems.count == 1 ? "invalid tracking number" : "\(problems.count) invalid tracking numbers"
            throw .usage("track: \(noun): " + problems.joined(separator: "; ") + "; nothing was sent")
        }
        return numbers
    }
}
