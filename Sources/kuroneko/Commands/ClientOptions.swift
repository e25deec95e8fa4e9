import Kuroneko

extension TrackingClient.Configuration {
    /// `--endpoint` and `--timeout`, the options every command that asks Yamato has.
    mutating func read(_ arguments: ArgumentList) throws(CommandFailure) {
        endpoint = try arguments.url("--endpoint") ?? endpoint
        requestTimeout = try arguments.seconds("--timeout") ?? requestTimeout
    }
}
