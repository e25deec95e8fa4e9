import Foundation

/// How many sign-in attempts are let through, per account and per address: the policy, pure (events in, answers
/// out), its state bounded. Each failure counts against both the account and the address; past `freeFailures`
/// within `window`, each further attempt waits a delay that doubles from `firstDelay` up to `longestDelay`; a
/// success clears the account's count (not the address's: one address guessing many accounts stays slowed).
public struct SignInThrottle: Sendable {
    public struct Policy: Sendable, Hashable {
        public var freeFailures = 5
        public var window: TimeInterval = 900
        public var firstDelay: TimeInterval = 1
        public var longestDelay: TimeInterval = 900
        /// The most accounts and addresses remembered; the oldest forgotten past it.
        public var remembered = 10_000

        public init() {}
    }

    public enum Answer: Sendable, Hashable {
        case allowed
        /// Refused without checking the password: try again after this many seconds (a 429 with Retry-After).
        case wait(seconds: Int)
    }

    struct Record: Sendable, Hashable {
        var failures: [Date] = []
        var lastSeen: Date
    }

    public let policy: Policy
    private(set) var accounts: [String: Record] = [:]
    private(set) var addresses: [String: Record] = [:]

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Whether an attempt for `account` from `address` may be checked now.
    public mutating func ask(account: String, address: String, at now: Date) -> Answer {
        let waits = [Self.key(account), address].enumerated().map { index, key -> TimeInterval in
            let record = index == 0 ? accounts[key] : addresses[key]
            return delay(record, at: now)
        }
        let longest = waits.max() ?? 0
        return longest > 0 ? .wait(seconds: Int(longest.rounded(.up))) : .allowed
    }

    /// Records the outcome of an attempt that was checked.
    public mutating func record(account: String, address: String, succeeded: Bool, at now: Date) {
        let accountKey = Self.key(account)
        if succeeded {
            accounts[accountKey] = nil
            return
        }
        for (isAccount, key) in [(true, accountKey), (false, address)] {
            var record = (isAccount ? accounts[key] : addresses[key]) ?? Record(lastSeen: now)
            record.failures = record.failures.filter { now.timeIntervalSince($0) < policy.window } + [now]
            record.failures = Array(record.failures.suffix(64))
            record.lastSeen = now
            if isAccount { accounts[key] = record } else { addresses[key] = record }
        }
        trim(&accounts)
        trim(&addresses)
    }

    /// Seconds until the next attempt is let through; zero when it may go now.
    private func delay(_ record: Record?, at now: Date) -> TimeInterval {
        guard let record else { return 0 }
        let recent = record.failures.filter { now.timeIntervalSince($0) < policy.window }
        let over = recent.count - policy.freeFailures
        guard over >= 0, let last = recent.last else { return 0 }
        let wait = min(policy.longestDelay, policy.firstDelay * pow(2, Double(min(over, 30))))
        return max(0, last.addingTimeInterval(wait).timeIntervalSince(now))
    }

    private func trim(_ records: inout [String: Record]) {
        guard records.count > policy.remembered else { return }
        let oldest = records.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(records.count - policy.remembered)
        for (key, _) in oldest { records[key] = nil }
    }

    /// Account names compared as people type them: case and width folded.
    static func key(_ account: String) -> String {
        account.precomposedStringWithCompatibilityMapping.lowercased()
    }
}
