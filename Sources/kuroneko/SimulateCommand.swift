import ArgumentParser
import Foundation
import KuronekoHTTP
import KuronekoSimulator

/// `kuroneko simulate`: run the stand-in for Yamato's tracking page until SIGINT or SIGTERM.
struct SimulateCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "simulate", usage: "[options]", summary: "run a stand-in for the carriers' tracking pages",
        description: [
            "Serves a stand-in for every carrier's tracking pages at their real paths (Yamato's form POST "
                + "/cgi-bin/tneko, and the others' pages) until SIGINT or SIGTERM. Each parcel's carrier and journey "
                + "follow from its number and the simulator's clock (" + SimulatedCarriers.ownershipInWords
                + "; any other number is Yamato's); a wrong check digit gives 伝票番号誤り. Admin endpoints: GET "
                + "/admin/stats, GET and PUT /admin/faults, GET and PUT /admin/clock."
        ],
        examples: [
            ("kuroneko simulate --port 8081 --latency-ms 300", "a slow stand-in"),
            (
                "S=http://127.0.0.1:8081; kuroneko track --endpoint yamato=$S/cgi-bin/tneko,sagawa=$S,japanpost=$S "
                    + "3277-5445-9830 812345678900 912345678904",
                "track numbers of three carriers against it"
            ),
        ])

    static let port = Setting("--port", range: 0...65_535, default: "8081")
    static let speed = Setting("--speed", range: 0...1_000_000, default: "1")
    static let latency = Setting("--latency-ms", range: 0...600_000, default: "0")
    static let errorRate = Setting("--error-rate", range: 0...1, default: "0")
    static let hang = Setting("--hang-seconds", range: 0...3_600, default: "0")

    @Option(help: .about("IPv4 address to listen on (default 127.0.0.1)", value: "ADDRESS")) var host: String?
    @Option(help: Self.port.help("port, 0 for any free one", value: "PORT"), transform: Self.port.parse) var port: Double?
    @Option(help: .about("the simulated time to start at, ISO 8601 (default: now)", value: "TIME")) var start: String?
    @Option(help: Self.speed.help("simulated seconds per real second", value: "FACTOR"), transform: Self.speed.parse) var speed: Double?
    @Option(help: Self.latency.help("delay every answer this long", value: "MS"), transform: Self.latency.parse) var latencyMs: Double?
    @Option(help: Self.errorRate.help("answer this share of requests with HTTP 500", value: "SHARE"), transform: Self.errorRate.parse) var errorRate: Double?
    @Flag(help: "answer every request with HTTP 500") var fail = false
    @Option(help: Self.hang.help("hold every request this long before answering", value: "S"), transform: Self.hang.parse) var hangSeconds: Double?
    @Flag(help: "cut every page off halfway") var truncate = false
    @Flag(
        help: ArgumentHelp(
            "serve every carrier's pages in a changed layout (a renamed class or table, and a sender's name and "
                + "telephone), as after a redesign"))
    var changedLayout = false

    func run(on terminal: Terminal) async throws {
        let read = reader(terminal)
        var server = HTTPServer.Configuration(port: 8081)
        server.host = host ?? server.host
        server.port = try read.integer(port, Self.port).map { UInt16($0) } ?? server.port
        let start = try read.time(start, Setting("--start"))
        let speed = try read.number(speed, Self.speed) ?? 1
        var faults = SimulatorFaults()
        faults.latencyMilliseconds = try read.integer(latencyMs, Self.latency) ?? 0
        faults.errorRate = try read.number(errorRate, Self.errorRate) ?? 0
        faults.hangSeconds = try read.integer(hangSeconds, Self.hang) ?? 0
        faults.alwaysFail = fail
        faults.truncatePages = truncate
        faults.changedLayout = changedLayout
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
