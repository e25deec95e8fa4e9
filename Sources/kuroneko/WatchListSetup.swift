import Foundation
import Kuroneko
import KuronekoPostgres
import KuronekoServer
import KuronekoWatch

/// The watch list of `kuroneko serve`: its database, the recorder every fresh answer goes through, and the
/// poller and webhook deliverer running beside the server.
struct WatchListSetup {
    let store: any WatchStore
    /// The file's path, or the PostgreSQL URL without its password: for the start-up line.
    let location: String
    let schedule: PollSchedule
    /// A file of `--demo`'s own, removed at exit.
    private let temporaryDirectory: URL?

    /// - Parameter announce: told what each migration does before it runs.
    static func open(
        path: String?, demo: Bool, environment: [String: String], pollSpeed: Double,
        announce: @escaping @Sendable (String) -> Void
    ) throws -> WatchListSetup {
        var temporary: URL?
        let file: String
        if let path {
            file = path
        } else if demo {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kuroneko-demo-\(UUID().uuidString)")
            temporary = directory
            file = directory.appendingPathComponent("kuroneko.sqlite").path
        } else {
            file = SQLiteWatchStore.defaultPath(environment: environment)
        }
        do {
            return WatchListSetup(
                store: try WatchStoreLocation.open(file, announce: announce), location: WatchStoreLocation.shown(file),
                schedule: PollSchedule(speed: pollSpeed),
                temporaryDirectory: temporary)
        } catch {
            throw CommandFailure.usage(WatchStoreLocation.failure("serve", file, error))
        }
    }

    /// The politeness budget: shared through the database when it is PostgreSQL (several servers, one
    /// budget), else `nil`, this process's own.
    func upstreamBudget(_ configuration: TrackingClient.Configuration, clock: any TrackingClock) throws
        -> (any UpstreamBudget)?
    {
        guard let store = store as? PostgresWatchStore else { return nil }
        return try PostgresUpstreamBudget(
            database: store.database, maxConcurrent: configuration.maxConcurrentRequests,
            minimumInterval: configuration.minimumRequestInterval, clock: clock)
    }

    /// Copies other servers fetched, from the shared database (PostgreSQL only: alone, a server's own cache
    /// already has what it fetched).
    func sharedShipments() -> (@Sendable (TrackingNumber) -> (Shipment, Date)?)? {
        guard store is PostgresWatchStore else { return nil }
        let store = self.store
        return { number in
            guard let latest = try? store.latestShipment(of: number), let shipment = latest.shipment else { return nil }
            return (shipment, latest.fetchedAt)
        }
    }

    /// On PostgreSQL, listens for shipments other servers fetched and caches them, so every server serves
    /// the latest answer any of them got. When that changes the status this server serves for a number, one
    /// line goes to `log`: `shared last4=9830 status=out_for_delivery` (the number's last four digits only).
    func listenForOtherServers(service: ShipmentService, log: @escaping @Sendable (String) -> Void)
        -> PostgresListener?
    {
        guard let store = store as? PostgresWatchStore else { return nil }
        return PostgresListener(url: store.database.url, channel: PostgresDatabase.shipmentsChannel) { payload in
            guard let (digits, carried) = PostgresDatabase.announcement(payload),
                let number = try? TrackingNumber(parsing: digits),
                let latest = carried ?? (try? store.latestShipment(of: number)) ?? nil, let shipment = latest.shipment
            else { return }
            if service.adopt(shipment, fetchedAt: latest.fetchedAt) {
                log("shared last4=\(number.digits.suffix(4)) status=\(shipment.status.code)")
            }
        }
    }

    func removeTemporaryFile() {
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }

    /// Records a fresh answer for whoever watches its number, scheduling each watch's next check.
    func recorder(clock: any TrackingClock) -> @Sendable (Shipment, Date) -> Void {
        let store = self.store
        let schedule = self.schedule
        return { shipment, fetchedAt in
            _ = try? store.record(shipment, fetchedAt: fetchedAt) { watch, shipment in
                schedule.nextCheck(
                    for: shipment, watchCreatedAt: watch.createdAt, now: fetchedAt, random: Double.random(in: 0..<1))
            }
        }
    }

    /// Starts the poller and the deliverer.
    /// - Parameter log: where each webhook attempt's line goes.
    func start(
        service: ShipmentService, clock: any TrackingClock, sender: any WebhookSender,
        log: @escaping @Sendable (String) -> Void
    ) -> BackgroundWork {
        let poller = WatchPoller(store: store, clock: clock, schedule: schedule) { number in
            if case .fresh = await service.check(number, priority: .background) { return true }
            return false
        }
        // A delivery's lease outlasts an attempt (10 s) even on a fast poll clock.
        let deliverer = WebhookDeliverer(
            store: store, sender: sender, clock: clock,
            lease: max(15, WebhookDeliverer.defaultLease / schedule.speed), log: log)
        let tick = Duration.milliseconds(Int64(max(50, min(1_000, 1_000 / schedule.speed))))
        return BackgroundWork(
            store: store, poller: poller, deliverer: deliverer,
            tasks: [Task { await poller.run(tick: tick) }, Task { await deliverer.run(tick: tick) }])
    }
}

/// The poller and the deliverer while they run, and their figures for `/metrics`.
struct BackgroundWork: Sendable {
    let store: any WatchStore
    let poller: WatchPoller
    let deliverer: WebhookDeliverer
    let tasks: [Task<Void, Never>]

    func stop() {
        tasks.forEach { $0.cancel() }
    }

    func metrics() -> [String] {
        let polls = poller.statistics
        let deliveries = deliverer.statistics
        let pending = (try? store.pendingDeliveryCount()) ?? 0
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
            "kuroneko_webhook_pending \(pending)",
        ]
    }
}
