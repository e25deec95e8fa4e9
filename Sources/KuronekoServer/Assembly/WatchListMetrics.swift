import Foundation
import KuronekoHTTP
import KuronekoStore

/// The poller's, the deliverers' and the store's figures, set in the registry when `/metrics` is scraped.
enum WatchListMetrics {
    static func record(
        poller: WatchPoller, deliverer: WebhookDeliverer, store: any WatchStore, failures: StoreFailures,
        recorder: AnswerRecorder, notices: CustomerNoticeDeliverer? = nil, into registry: MetricsRegistry
    ) async {
        let polls = poller.statistics
        let deliveries = deliverer.statistics
        let pendingHelp = "Webhook deliveries waiting in the outbox."
        do {
            registry.level(
                "kuroneko_webhook_pending", help: pendingHelp, value: Double(try await store.pendingDeliveryCount()))
        } catch {
            // Left out of this scrape (a gauge missing, not a false zero).
            failures.report(.metrics, error)
            registry.forget("kuroneko_webhook_pending", help: pendingHelp)
        }
        registry.level(
            "kuroneko_poller_budget_share", help: "The share of the upstream budget the poller may use at most.",
            value: WatchPoller.budgetShare)
        registry.total(
            "kuroneko_poller_checks_total", help: "Watched numbers the poller checked.", value: Double(polls.checks))
        registry.total(
            "kuroneko_poller_failures_total", help: "Poller checks Yamato did not answer.", value: Double(polls.failures))
        let deliveryHelp = "Webhook attempts, by result."
        for (result, count) in [
            ("delivered", deliveries.delivered), ("failed", deliveries.failedAttempts), ("given_up", deliveries.givenUp),
        ] {
            registry.total("kuroneko_webhook_deliveries_total", [("result", result)], help: deliveryHelp, value: Double(count))
        }
        registry.level(
            "kuroneko_answers_waiting_to_be_recorded",
            help: "Fresh answers whose recording failed, to be tried again.", value: Double(recorder.waitingCount))
        recordNotices(notices, into: registry)
        failures.record(into: registry)
    }

    /// Customer notices by how each ended (`retried`: an attempt to be tried again); zeros on a server that
    /// sends none, so a dashboard's query always finds the series.
    static func recordNotices(_ notices: CustomerNoticeDeliverer?, into registry: MetricsRegistry) {
        let counts = notices?.statistics ?? [:]
        for result in ["sent", "retried", "refused", "stopped", "failed"] {
            registry.total(
                "kuroneko_customer_notices_total", [("result", result)], help: "Customer notices, by result.",
                value: Double(counts[result] ?? 0))
        }
    }
}
