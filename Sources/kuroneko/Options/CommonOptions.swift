import ArgumentParser
import Foundation
import Kuroneko
import KuronekoServer
import KuronekoStore
import KuronekoNotify

extension Carrier: ExpressibleByArgument {}

/// The options several commands share, each a group declared once.
extension Setting {
    /// The library's own defaults, which the options' defaults are read from rather than written again.
    static let clientDefaults = TrackingClient.Configuration()
    static let serverDefaults = Server.Configuration()

    static let database = Setting("--db", variable: "KURONEKO_DB")
    static let allowPrivateChannel = Setting("--allow-private", variable: "KURONEKO_ALLOW_PRIVATE_WEBHOOKS")
    static let endpoint = Setting("--endpoint", variable: "KURONEKO_ENDPOINT")
    static let caFile = Setting("--ca-file", variable: "KURONEKO_CA_FILE")
    static let timeout = Setting(
        "--timeout", variable: "KURONEKO_TIMEOUT", range: 0.1...600, default: seconds(clientDefaults.requestTimeout))
    static let minInterval = Setting(
        "--min-interval", variable: "KURONEKO_MIN_INTERVAL", range: 0...60,
        default: seconds(clientDefaults.minimumRequestInterval))
}

/// `--db PATH`: the watch list's database.
struct DatabaseOption: ParsableArguments {
    @Option(
        help: Setting.database.help(
            "the watch list: an SQLite file (default $XDG_DATA_HOME/kuroneko/kuroneko.sqlite) or a postgres:// URL",
            value: "PATH"))
    var db: String?
}

/// `--list LIST`: which of the lists a command acts on.
struct ListOption: ParsableArguments {
    @Option(help: .about("the list to act on, by name or id (kuroneko lists shows them); today's list when left out", value: "LIST"))
    var list: String?
}

/// Where the carriers are and how they are asked: `--endpoint`, `--ca-file`, `--timeout`, `--min-interval`.
struct ClientFlags: ParsableArguments {
    @Option(help: endpointHelp) var endpoint: [String] = []

    static let endpointHelp = Setting.endpoint.help(
        "where the carriers' sites are: a URL is Yamato's form (default "
            + "\(Setting.clientDefaults.endpoint.absoluteString)); CARRIER=ORIGIN puts that carrier's real paths "
            + "under ORIGIN (sagawa=http://127.0.0.1:8081); several comma-separated or the option again",
        value: "URL")

    @Option(help: caFileHelp) var caFile: String?

    static let caFileHelp = Setting.caFile.help(
        "a PEM file of the certificate authorities to trust for https, instead of the system's (a private "
            + "authority, or tests)", value: "FILE")

    @Option(help: Setting.timeout.help("per request to Yamato", value: "SECONDS"), transform: Setting.timeout.parse)
    var timeout: Double?

    @Option(
        help: Setting.minInterval.help(
            "between the starts of requests to each carrier (lower it only for a simulator of your own)",
            value: "SECONDS"), transform: Setting.minInterval.parse)
    var minInterval: Double?

    /// The carriers asked, each with its own defaults; with `--endpoint`, only the carriers it names (a bare URL
    /// naming Yamato), so a run against a simulator or a fake never reaches a real site it did not mean to.
    func configurations(_ reader: OptionReader) throws(CommandFailure) -> [TrackingClient.Configuration] {
        let endpoints = try reader.endpoints(endpoint, .endpoint)
        let timeout = try reader.seconds(timeout, .timeout)
        let caFile = try reader.certificates(caFile, .caFile)
        let interval = try reader.seconds(minInterval, .minInterval)
        let carriers = endpoints.isEmpty ? Carrier.allCases : Carrier.allCases.filter { endpoints[$0] != nil }
        return carriers.map { carrier in
            var configuration = TrackingClient.Configuration.defaults(for: carrier)
            if let endpoint = endpoints[carrier] { configuration.endpoint = endpoint }
            if let timeout { configuration.requestTimeout = timeout }
            if let interval { configuration.minimumRequestInterval = interval }
            configuration.caFile = caFile
            return configuration
        }
    }

    /// One client per configuration, each within `budget(configuration)` when it gives one.
    static func client(
        _ configurations: [TrackingClient.Configuration],
        budget: (TrackingClient.Configuration) throws -> (any UpstreamBudget)? = { _ in nil }
    ) rethrows -> MultiCarrierClient {
        MultiCarrierClient(
            clients: try configurations.map { configuration in
                TrackingClient(configuration: configuration, clock: SystemClock(), budget: try budget(configuration))
            })
    }
}

/// The language of labels and messages.
enum Language: String, CaseIterable, ExpressibleByArgument {
    case japanese = "ja", english = "en"
}

/// `--carrier CARRIER`: the help of the commands that look numbers up.
extension ArgumentHelp {
    static let carrierLookup = ArgumentHelp.about(
        "look every number up at this carrier; without it each number's carrier is found ("
            + CarrierRegistry.formsInWords + ")", value: "CARRIER")
    static let noColor = ArgumentHelp.about("never colour the table")
    static let quiet = ArgumentHelp.about("no progress on standard error")
    static let excel = ArgumentHelp.about(
        "for Excel: a UTF-8 BOM, CRLF line ends, and every long number written so Excel keeps it whole")
}
extension ListRole: ExpressibleByArgument {}
extension CustomerMilestone: ExpressibleByArgument {}
extension MessageCharset: ExpressibleByArgument {}
