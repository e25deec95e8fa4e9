import Foundation
import KuronekoHTTP
import KuronekoStore
import Logging
import Synchronization

/// Store calls that failed in background work (the poller, the deliverers, recording an answer, the key
/// ring, the metrics) or in a request (answered 503 with its request id): each failure is one log line naming the operation and what it was about, with the
/// error (which never reaches a client), and is counted per operation for
/// `kuroneko_store_errors_total{operation}`. A cancellation is the server stopping, not a failure: neither
/// logged nor counted.
public final class StoreFailures: Sendable {
    /// What was being done; a fixed set, so the metric's labels are bounded.
    public enum Operation: String, CaseIterable, Sendable {
        case claimChecks = "claim_checks"
        case postpone
        case record
        case readShared = "read_shared"
        case claimDeliveries = "claim_deliveries"
        case recordAttempt = "record_attempt"
        case endSubscription = "end_subscription"
        case claimChannelDeliveries = "claim_channel_deliveries"
        case recordChannelAttempt = "record_channel_attempt"
        case endChannel = "end_channel"
        /// Claiming, reading for and recording customer notices.
        case customerNotices = "customer_notices"
        /// Forgetting old entries of the lists' audit logs.
        case auditLog = "audit_log"
        case announceArrivals = "announce_arrivals"
        case markStalled = "mark_stalled"
        case markOverdue = "mark_overdue"
        case keptReminders = "kept_reminders"
        case morningSummaries = "morning_summaries"
        /// Reading the list Home Assistant is shown (`--mqtt`).
        case homeAssistant = "home_assistant"
        case promoteWaiting = "promote_waiting"
        case forgetFinished = "forget_finished"
        case forgetRemovals = "forget_removals"
        case loadKeys = "load_keys"
        case markPageRefused = "mark_page_refused"
        case keepPage = "keep_page"
        case carrierPageState = "carrier_page_state"
        /// The mailbox's progress, its state and the watches its mail adds.
        case mailbox
        case metrics
        /// The politeness budget servers on one PostgreSQL database share (once for a run of failures).
        case sharedBudget = "shared_budget"
        /// Listening for the shipments other servers record (once for a run of failures).
        case sharedListener = "shared_listener"
        /// A request's store call (the client was answered 503 with the request's id).
        case api
    }

    private let counts = Mutex([Operation: Int]())
    private let log: Logger?

    /// - Parameter log: where the lines go (the operator's log); nowhere by default.
    public init(log: Logger? = nil) {
        self.log = log
    }

    /// Logs and counts one failure, its values as metadata: text `store operation=record error=… number=…`.
    public func report(_ operation: Operation, _ error: any Error, context: Logger.Metadata = [:]) {
        if error is CancellationError { return }
        counts.withLock { $0[operation, default: 0] += 1 }
        var fields = context
        fields["operation"] = .string(operation.rawValue)
        fields["error"] = .string(Self.words(of: error))
        log?.warning("store", metadata: fields)
    }

    /// Logs and counts an error a request met that is neither a refusal nor the store's (answered 500):
    /// text `unexpected error=… request=…`.
    public func unexpected(_ error: any Error, context: Logger.Metadata) {
        unexpectedCount.add(1, ordering: .relaxed)
        var fields = context
        fields["error"] = .string(Self.words(of: error))
        log?.error("unexpected", metadata: fields)
    }

    /// An error's words on one line, at most 300 characters (the driver's, never shown to a client).
    static func words(of error: any Error) -> String {
        String("\(error)".replacingOccurrences(of: "\n", with: " ").prefix(300))
    }

    private let unexpectedCount = Atomic<Int>(0)

    /// Failures so far, by operation.
    public func count(_ operation: Operation) -> Int { counts.withLock { $0[operation] ?? 0 } }

    func record(into registry: MetricsRegistry) {
        let counts = self.counts.withLock { $0 }
        for operation in Operation.allCases {
            registry.total(
                "kuroneko_store_errors_total", [("operation", operation.rawValue)],
                help: "Store calls of background work that failed, by operation.", value: Double(counts[operation] ?? 0))
        }
        registry.total(
            "kuroneko_unexpected_errors_total",
            help: "Requests answered 500: errors neither a refusal nor the store's.",
            value: Double(unexpectedCount.load(ordering: .relaxed)))
    }
}
