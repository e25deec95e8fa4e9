/// When and how long to wait before asking the upstream again.
///
/// Only failures that may pass are retried (timeouts, connection errors, HTTP 5xx); a 4xx answer or a page
/// the parser refuses would come back the same, so those are never retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt; 0 disables retrying.
    public var maxRetries: Int
    /// The wait before the first retry; each further retry doubles it.
    public var initialBackoff: Duration
    /// The longest wait between two attempts.
    public var maxBackoff: Duration

    /// - Parameters:
    ///   - maxRetries: default 2, so at most three attempts.
    ///   - initialBackoff: default 1 s.
    ///   - maxBackoff: default 8 s.
    public init(maxRetries: Int = 2, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(8)) {
        self.maxRetries = max(0, maxRetries)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// The wait before retry number `retry` (1-based): exponential, capped, with jitter so that many clients
    /// failing together do not retry together. The result lies in [½ · backoff, backoff].
    /// - Parameter randomFraction: a number in [0, 1), drawn at random by the caller.
    public func delay(beforeRetry retry: Int, randomFraction: Double) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let seconds = min(
            initialBackoff / .seconds(1) * pow2(exponent), maxBackoff / .seconds(1))
        let jittered = seconds * (0.5 + 0.5 * min(max(randomFraction, 0), 1))
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(min(exponent, 62)) { result *= 2 }
        return result
    }
}
