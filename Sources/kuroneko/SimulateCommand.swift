import Foundation
import KuronekoServer

/// `kuroneko simulate`: run the stand-in for Yamato's tracking page until SIGINT or SIGTERM.
struct SimulateCommand {
    private let server: HTTPServer.Configuration
    private let start: Date?
    private let speed: Double
    private let faults: SimulatorFaults

    init(arguments: [String]) throws(CommandFailure) {
        var arguments = ArgumentList(arguments, command: "simulate")
        var server = HTTPServer.Configuration(port: 8081)
        server.host = try arguments.option("--host") ?? server.host
        if let port = try arguments.option("--port") {
            guard let value = UInt16(port) else {
                throw .usage("simulate: --port \"\(port)\" is not a port number; expected 0 to 65535")
            }
            server.port = value
        }
        self.server = server
        if let text = try arguments.option("--start") {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw .usage(
                    "simulate: --start \"\(text)\" is not an ISO 8601 time; expected e.g. 2026-11-29T09:00:00+09:00")
            }
            start = date
        } else {
            start = nil
        }
        speed = try Self.number(arguments.option("--speed"), name: "--speed", range: 0...1_000_000) ?? 1
        var faults = SimulatorFaults()
        faults.latencyMilliseconds =
            Int(try Self.number(arguments.option("--latency-ms"), name: "--latency-ms", range: 0...600_000) ?? 0)
        faults.errorRate = try Self.number(arguments.option("--error-rate"), name: "--error-rate", range: 0...1) ?? 0
        faults.hangSeconds =
            Int(try Self.number(arguments.option("--hang-seconds"), name: "--hang-seconds", range: 0...3600) ?? 0)
        faults.alwaysFail = arguments.flag("--fail")
        faults.truncatePages = arguments.flag("--truncate")
        faults.changedLayout = arguments.flag("--changed-layout")
        self.faults = faults
        let extra = try arguments.positionals()
        guard extra.isEmpty else {
            throw .usage("simulate: unexpected argument '\(extra[0])'; see 'kuroneko simulate --help'")
        }
    }

    func run(on terminal: Terminal) async throws {
        TerminationSignals.block()
        let clock = SimulatorClock(start: start, speed: speed)
        let running: HTTPServer
        do {
            running = try HTTPServer(configuration: server, responder: SimulatorResponder(clock: clock, faults: faults))
        } catch {
            throw CommandFailure.usage("simulate: \(error.message)")
        }
        terminal.printError(
            "kuroneko simulate: listening on http://\(server.host):\(running.port)/cgi-bin/tneko "
                + "speed=\(speed) latency_ms=\(faults.latencyMilliseconds) error_rate=\(faults.errorRate) "
                + "always_fail=\(faults.alwaysFail) hang_seconds=\(faults.hangSeconds) "
                + "truncate_pages=\(faults.truncatePages) changed_layout=\(faults.changedLayout)")
        let signal = await TerminationSignals.wait()
        terminal.printError("kuroneko simulate: \(signal) received, finishing requests in flight")
        await running.shutdown()
    }

    private static func number(_ text: String?, name: String, range: ClosedRange<Double>) throws(CommandFailure)
        -> Double?
    {
        guard let text else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw .usage(
                "simulate: \(name) \"\(text)\" is not a number from \(range.lowerBound.formatted()) to "
                    + "\(range.upperBound.formatted())")
        }
        return value
    }
}
