import Foundation
import KuronekoHTTP
import KuronekoSimulator

/// `kuroneko simulate`: run the stand-in for Yamato's tracking page until SIGINT or SIGTERM.
struct SimulateCommand: Command {
    static let spec = CommandCatalog.simulate
    private let server: HTTPServer.Configuration
    private let start: Date?
    private let speed: Double
    private let faults: SimulatorFaults

    private let terminal: Terminal

    init(_ arguments: ArgumentList, terminal: Terminal) throws(CommandFailure) {
        self.terminal = terminal
        var server = HTTPServer.Configuration(port: 8081)
        server.host = arguments.text(.host) ?? server.host
        server.port = try arguments.number(.port).map { UInt16($0) } ?? server.port
        self.server = server
        start = try arguments.time(.start)
        speed = try arguments.number(.speed) ?? 1
        var faults = SimulatorFaults()
        faults.latencyMilliseconds = Int(try arguments.number(.latencyMs) ?? 0)
        faults.errorRate = try arguments.number(.errorRate) ?? 0
        faults.hangSeconds = Int(try arguments.number(.hangSeconds) ?? 0)
        faults.alwaysFail = arguments.flag(.fail)
        faults.truncatePages = arguments.flag(.truncate)
        faults.changedLayout = arguments.flag(.changedLayout)
        self.faults = faults
        try arguments.expectNoOperands()
    }

    func run() async throws {
        let clock = SimulatorClock(start: start, speed: speed)
        let running: HTTPServer
        do {
            running = try HTTPServer(
                configuration: server,
                application: SimulatorResponder(clock: clock, faults: faults) { post, numbers in
                    // One line per POST as it arrives: what the stand-in Yamato was asked, before any fault.
                    terminal.printError("kuroneko simulate: POST \(post) received with \(numbers) numbers")
                })
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
}
