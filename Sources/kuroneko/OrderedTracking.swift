import Foundation
import Kuroneko

/// Tracks numbers and hands each shipment over in the order given, as soon as it and every one before it
/// are known, with the progress line on a terminal; the numbers whose POST failed are said at the end, grouped
/// by cause (``FailureDigest``). `track` and `import` print through it.
enum OrderedTracking {
    /// - Returns: how many numbers failed.
    static func run(
        _ numbers: [TrackingNumber], carrier: Carrier?, configurations: [TrackingClient.Configuration], quiet: Bool,
        terminal: Terminal, deliver: (Shipment) throws -> Void
    ) async throws -> Int {
        var failures = FailureDigest()
        try await answers(
            numbers, carrier: carrier, client: ClientFlags.client(configurations), quiet: quiet, terminal: terminal
        ) { answer in
            switch answer.result {
            case .success(let shipment):
                try deliver(shipment)
            case .failure(let error):
                failures.add(answer.number, error.message)
            }
        }
        for line in failures.lines { terminal.printError("kuroneko: \(line)") }
        return failures.total
    }

    /// Every answer, success or failure, in the order given, each while the progress line is taken off.
    static func answers(
        _ numbers: [TrackingNumber], carrier: Carrier?, client: MultiCarrierClient, quiet: Bool,
        terminal: Terminal, deliver: (TrackingAnswer) async throws -> Void
    ) async throws {
        let progress =
            quiet || !terminal.errorIsTerminal
            ? nil
            : TrackProgress(total: numbers.count, distinct: Set(numbers).count, client: client, terminal: terminal)
        progress?.start()
        defer { progress?.stop() }
        var waiting: [Int: TrackingAnswer] = [:]
        var next = 0
        for await answer in client.answers(for: numbers, carrier: carrier) {
            waiting[answer.index] = answer
            progress?.answered(answer.number)
            while let ready = waiting.removeValue(forKey: next) {
                next += 1
                // The progress line is taken off while a line is printed, so the two never mix.
                try await TrackProgress.whileCleared(progress) { try await deliver(ready) }
            }
        }
        progress?.stop()
        try Task.checkCancellation()
    }
}
