import Kuroneko

/// The carriers the commands ask, from `--endpoint`, `--timeout` and `--min-interval`: each carrier with its own defaults;
/// with `--endpoint`, only the carriers it names (a bare URL naming Yamato), so a run against a simulator
/// or a fake never reaches a real site it did not mean to.
enum ClientOptions {
    static func configurations(_ arguments: ArgumentList) throws(CommandFailure) -> [TrackingClient.Configuration] {
        let endpoints = try arguments.endpoints(.endpoint)
        let timeout = try arguments.seconds(.timeout)
        let caFile = try arguments.certificates(.caFile)
        let interval = try arguments.seconds(.minInterval)
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
