import Foundation
import KuronekoStore

/// The poller's and the deliverer's figures for `/metrics`.
enum WatchListMetrics {
    static func lines(
        poller: WatchPoller, deliverer: WebhookDeliverer, store: any WatchStore, failures: StoreFailures,
        recorder: AnswerRecorder, notices: CustomerNoticeDeliverer? = nil
    ) async -> [String] {
        let polls = poller.statistics
        let deliveries = deliverer.statistics
        var pending: [String] = []
        do {
            pending = ["kuroneko_webhook_pending \(try await store.pendingDeliveryCount())"]
        } catch {
            // Left out of this scrape (a gauge missing, not a false zero).
            failures.report(.metrics, error)
        }
        return [
            "# HELP kuroneko_poller_budget_share The share of the upstream budget the poller may use at most.",
            "# TYPE kuroneko_poller_budget_share gauge",
            "kuroneko_poller_budget_share \(WatchPoller.budgetShare)",
            "# HELP kuroneko_poller_checks_total Watched numbers the poller checked.",
            "# TYPE kuroneko_poller_checks_total counter",
            "kuroneko_poller_checks_total \(polls.checks)",
            "# HELP kuroneko_poller_failures_total Poller checks Yamato did not answer.",
            "# TYPE kuroneko_poller_failures_total counter",
            "kuroneko_poller_failures_total \(polls.failures)",
            "# HELP kuroneko_webhook_deliveries_total Webhook attempts, by result.",
            "# TYPE kuroneko_webhook_deliveries_total counter",
            "kuroneko_webhook_deliveries_total{result=\"delivered\"} \(deliveries.delivered)",
            "kuroneko_webhook_deliveries_total{result=\"failed\"} \(deliveries.failedAttempts)",
            "kuroneko_webhook_deliveries_total{result=\"given_up\"} \(deliveries.givenUp)",
            "# HELP kuroneko_webhook_pending Webhook deliveries waiting in the outbox.",
            "# TYPE kuroneko_webhook_pending gauge",
        ] + pending + [
            "# HELP kuroneko_answers_waiting_to_be_recorded Fresh answers whose recording failed, to be tried again.",
            "# TYPE kuroneko_answers_waiting_to_be_recorded gauge",
            "kuroneko_answers_waiting_to_be_recorded \(recorder.waitingCount)",
        ] + noticeLines(notices) + failures.prometheusLines
    }

    /// Customer notices by how each ended (`retried`: an attempt to be tried again); zeros on a server that
    /// sends none, so a dashboard's query always finds the series.
    static func noticeLines(_ notices: CustomerNoticeDeliverer?) -> [String] {
        let counts = notices?.statistics ?? [:]
        return [
            "# HELP kuroneko_customer_notices_total Customer notices, by result.",
            "# TYPE kuroneko_customer_notices_total counter",
        ] + ["sent", "retried", "refused", "stopped", "failed"].map { result in
            "kuroneko_customer_notices_total{result=\"\(result)\"} \(counts[result] ?? 0)"
        }
    }
}
