import ArgumentParser
import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoServer
import KuronekoSimulator
import KuronekoStore
import KuronekoWebApp

/// `kuroneko serve`: flags and `KURONEKO_…` variables → ``Server/Configuration`` → ``Server/run(environment:until:)``,
/// until SIGINT or SIGTERM. Its options are declared in ServeOptions.swift.
struct ServeCommand: ToolCommand {
    static let configuration = CommandConfiguration.command(
        "serve", usage: "[options]",
        summary: "run the REST API (--demo: against a built-in simulator of every carrier)",
        description: [
            "Serves the REST API until SIGINT or SIGTERM: GET /v1/shipments/{number}, GET /v1/shipments?numbers=a,b, "
                + "POST /v1/shipments/query, POST /v1/tneko, /healthz, /readyz, /metrics, /openapi.json. Every option "
                + "can also be set with the environment variable named beside it; the flag wins."
        ],
        examples: [
            ("kuroneko serve --demo --port 8080", "the API against the built-in simulator"),
            ("KURONEKO_PORT=9000 kuroneko serve --cors-origins https://shop.example", "the real Yamato, for one site"),
        ])

    @OptionGroup var options: ServeOptions
    @OptionGroup var mailbox: MailboxOptions
    @OptionGroup var mqtt: MQTTOptions
    @OptionGroup var later: ServeLaterOptions
    @OptionGroup var channelSettings: ChannelSettingOptions
    @OptionGroup var behaviour: ServeBehaviourOptions
    @OptionGroup var smtp: SMTPOptions

    /// `--canary CARRIER=NUMBER`, comma-separated or given again, at most one per carrier.
    static func canaries(_ given: (texts: [String], source: String)?) throws(CommandFailure) -> [Carrier: TrackingNumber] {
        guard let (texts, source) = given else { return [:] }
        var canaries: [Carrier: TrackingNumber] = [:]
        for item in texts.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let shown = item.prefix(60).visibleInOneLine
            guard let equals = item.firstIndex(of: "=") else {
                throw .usage("serve: \(source) \"\(shown)\" is not CARRIER=NUMBER; expected e.g. yamato=4471-0412-3454")
            }
            let carrier: Carrier
            let number: TrackingNumber
            do {
                carrier = try Carrier(named: String(item[..<equals]))
                number = try TrackingNumber(parsing: String(item[item.index(after: equals)...]))
            } catch {
                throw .usage("serve: \(source) \"\(shown)\": \(error)")
            }
            guard canaries.updateValue(number, forKey: carrier) == nil else {
                throw .usage("serve: \(source) names \(carrier) twice; give each carrier one canary")
            }
        }
        return canaries
    }

    /// `*`, or a comma-separated list of origins such as `https://shop.example,http://localhost:3000`.
    static func proxies(_ text: String?) throws(CommandFailure) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        let addresses = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for address in addresses where ClientAddress.key(address) == nil {
            throw .usage(
                "serve: --trusted-proxy \"\(address.prefix(60))\" is not an IP address; expected addresses such as "
                    + "127.0.0.1 or ::1, comma-separated")
        }
        return addresses
    }

    static func origins(_ text: String?) throws(CommandFailure) -> [String] {
        guard let text else { return [] }
        let origins = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for origin in origins where origin != "*" {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil, url.path.isEmpty, url.query == nil
            else {
                throw .usage(
                    "serve: --cors-origins \"\(origin)\" is not an origin; expected * or scheme://host[:port], "
                        + "e.g. https://shop.example")
            }
        }
        return origins
    }

    /// Serves until SIGTERM or SIGINT. With `--log-format json`, a failure is written as a JSON line too.
    func run(on terminal: Terminal) async throws {
        let setting = try settings(terminal)
        let configuration = setting.configuration
        let format = configuration.logFormat
        // Whatever logs through swift-log's process-wide system (a library's own Logger) writes the server's lines.
        LoggingSystem.bootstrap { [terminal] _ in
            LineLogHandler(format: format, prefix: "kuroneko serve: ", fieldOrder: ServerLogging.fieldOrder) { line in
                terminal.printError(line)
            }
        }
        let notices = ServerLogging.notices(format: format) { [terminal] line in
            terminal.printError(line)
        }
        do {
            try await serve(setting, notices: notices, terminal: terminal)
        } catch let failure as CommandFailure where configuration.logFormat == .json {
            notices.error("\(failure.message)")
            throw CommandFailure.reported(failure.status)
        } catch let error where configuration.logFormat == .json && !(error is CommandFailure) {
            notices.error("\(error)")
            throw CommandFailure.reported(.lookupFailed)
        }
    }

    private func serve(_ setting: ServeSettings, notices: Logger, terminal: Terminal) async throws {
        var configuration = setting.configuration
        let (demo, databasePath, environment) = (setting.demo, setting.databasePath, terminal.environment)
        // --demo without --db: a file of its own, removed at exit.
        var temporary: URL?
        if let databasePath {
            configuration.database = databasePath
        } else if demo {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kuroneko-demo-\(UUID().uuidString)")
            temporary = directory
            configuration.database = directory.appendingPathComponent("kuroneko.sqlite").path
        } else {
            configuration.database = SQLiteWatchStore.defaultPath(environment: environment)
        }
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let transport: any HTTPTransport =
            demo
            ? SimulatorTransport(simulator: SimulatorResponder(clock: SimulatorClock()))
            : CurlTransport(caFile: configuration.caFile)
        let logWriter = BufferedLogWriter(format: configuration.logFormat)
        let server: Server
        do {
            server = try await Server.make(
                configuration: configuration, transport: transport, clock: SystemClock(), notices: notices,
                log: logWriter, flushLog: { _ = logWriter.flush() })
        } catch {
            throw CommandFailure.usage(DatabaseLocation.failure("serve", configuration.database, error))
        }
        // Listening for signals from before the server is ready, so one sent right after READY=1 is taken.
        let signals = SignalListener()
        let reload = ReloadSignal { server.reloadCertificates() }
        defer { withExtendedLifetime(reload) {} }
        do {
            try await server.run(environment: environment) {
                let signal = await signals.next()
                Self.exitOnSecondSignal(
                    signals, notices: notices, flush: { logWriter.flush(timeout: .milliseconds(500)) })
                return signal
            }
        } catch let error as ServerStartError {
            throw CommandFailure.usage("serve: \(error.message)")
        } catch let ended as ServiceEnded {
            throw Self.failure(ended)
        }
    }

    /// A background service ended on its own: exit status 1, for the service manager to start the server again
    /// (the log has already said which service and why).
    static func failure(_ ended: ServiceEnded) -> CommandFailure {
        .lookup("serve: \(ended)")
    }

    /// Exits at once, with 128 + the signal's number, when SIGINT or SIGTERM comes again during the drain.
    static func exitOnSecondSignal(
        _ signals: SignalListener, notices: Logger, flush: @escaping @Sendable () -> Void
    ) {
        Task.detached {
            let again = await signals.next()
            flush()
            notices.warning("\(again) received again, exiting now")
            Glibc.exit(again == "SIGINT" ? 130 : 143)
        }
    }

    /// `--tls-cert` and `--tls-key`, both or neither; each must be a readable file.
    static func tls(certificate: String?, key: String?) throws(CommandFailure) -> TLSFiles? {
        let certificate = certificate.flatMap { $0.isEmpty ? nil : $0 }
        let key = key.flatMap { $0.isEmpty ? nil : $0 }
        switch (certificate, key) {
        case (nil, nil): return nil
        case (let certificate?, let key?): return TLSFiles(certificate: certificate, key: key)
        case (nil, _):
            throw .usage("serve: --tls-key (KURONEKO_TLS_KEY) needs --tls-cert (KURONEKO_TLS_CERT), the certificate file")
        case (_, nil):
            throw .usage("serve: --tls-cert (KURONEKO_TLS_CERT) needs --tls-key (KURONEKO_TLS_KEY), the key file")
        }
    }
}
