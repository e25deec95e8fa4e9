import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Watches every carrier's pages for a change of layout: told of each attempt as it ends (``observe(_:carrier:)``,
/// on the scheduler's task, never waiting), it judges each carrier with ``PageHealth`` and queues what the store
/// must learn; ``run(tick:)`` then keeps the refused pages (redacted, bounded), marks the watches whose page was
/// refused, and records each carrier's state, which tells the operator's channels once per change.
public final class PageWatch: Sendable {
    /// The most refused pages waiting to be kept; more are counted but not kept.
    static let queueLimit = 32

    private struct Pending: Sendable {
        var pages: [(RefusedPage, [TrackingNumber], Date)] = []
        var refusedNumbers: [TrackingNumber] = []
        var actions: [(PageHealth.Action, Date)] = []
        var notKept = 0
    }

    private let health: Mutex<PageHealth>
    private let pending = Mutex(Pending())
    private let doorbell = Doorbell()
    private let store: any WatchStore
    private let clock: any TrackingClock
    private let failures: StoreFailures
    private let limits: RefusedPageLimits
    private let log: Logger
    private let announced: @Sendable () -> Void
    /// The canary of each carrier (`--canary`).
    public let canaries: [Carrier: TrackingNumber]

    /// - Parameters:
    ///   - log: the operator's lines (a carrier judged changed or read again, a page kept).
    ///   - announced: told when the operator's news was queued (rings the outbox).
    init(
        store: any WatchStore, clock: any TrackingClock, canaries: [Carrier: TrackingNumber],
        policy: PageHealth.Policy = PageHealth.Policy(), limits: RefusedPageLimits = RefusedPageLimits(),
        failures: StoreFailures, log: Logger, announced: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.clock = clock
        self.canaries = canaries
        self.health = Mutex(PageHealth(policy: policy))
        self.limits = limits
        self.failures = failures
        self.log = log
        self.announced = announced
    }

    /// The carriers whose pages are judged changed on this server, with since when and why.
    var degraded: [Carrier: PageHealth.Degraded] { health.withLock { $0.degraded } }

    /// One attempt as it ended: a refused page that means a changed layout, or a page read.
    public func observe(_ report: UpstreamPostReport, carrier: Carrier) {
        let now = clock.now
        let canary = canaries[carrier].map { report.asked.contains($0) } ?? false
        let event: PageHealth.Event
        if let refused = report.refusedPage {
            guard refused.meansPageChanged else { return }
            event = .refused(
                carrier, numbers: report.asked, reason: refused.error.code.rawValue, canary: canary, at: now)
        } else if !report.failed {
            event = .read(carrier, canary: canary, at: now)
        } else {
            return
        }
        let actions = health.withLock { $0.handle(event) }
        let queued = pending.withLock { pending -> Bool in
            pending.actions += actions.map { ($0, now) }
            guard let refused = report.refusedPage else { return !actions.isEmpty }
            pending.refusedNumbers += report.asked
            if pending.refusedNumbers.count > 1_000 { pending.refusedNumbers.removeFirst(pending.refusedNumbers.count - 1_000) }
            if pending.pages.count < Self.queueLimit {
                pending.pages.append((refused, report.asked, now))
            } else {
                pending.notKept += 1
            }
            return true
        }
        if queued { doorbell.ring() }
    }

    /// Keeps, marks and records what was queued, until the task is cancelled.
    func run(tick: Duration) async {
        while !Task.isCancelled {
            await drain()
            await doorbell.nap(for: tick, clock: clock)
        }
    }

    /// Does what is queued now.
    func drain() async {
        let work = pending.withLock { pending -> Pending in
            defer { pending = Pending() }
            return pending
        }
        if !work.refusedNumbers.isEmpty {
            do {
                try await store.markPageRefused(Array(Set(work.refusedNumbers)), at: clock.now)
            } catch {
                failures.report(.markPageRefused, error)
            }
        }
        for (page, asked, at) in work.pages { await keep(page, asked: asked, at: at) }
        var retry: [(PageHealth.Action, Date)] = []
        for (action, at) in work.actions {
            let carrier: Carrier
            let notice: CarrierPageNotice
            switch action {
            case .changed(let which, let reason):
                carrier = which
                notice = CarrierPageNotice(carrier: which, restored: false, reason: reason, at: at)
            case .restored(let which):
                carrier = which
                notice = CarrierPageNotice(carrier: which, restored: true, reason: nil, at: at)
            }
            do {
                let news = try await store.setCarrierPageState(
                    carrier, changed: !notice.restored, reason: notice.reason, at: at, notice: notice.json())
                if notice.restored {
                    log.info(
                        "carrier's pages are read again",
                        metadata: ["carrier": "\(carrier)", "operator_told": .stringConvertible(news)])
                } else {
                    log.warning(
                        "carrier's page not understood",
                        metadata: [
                            "carrier": "\(carrier)", "reason": .string(notice.reason ?? ""),
                            "operator_told": .stringConvertible(news),
                        ])
                }
                if news { announced() }
            } catch {
                failures.report(.carrierPageState, error, context: ["carrier": "\(carrier)"])
                retry.append((action, at))
            }
        }
        if !retry.isEmpty {
            // Said on the next tick, in order, before anything newer.
            pending.withLock { $0.actions = retry + $0.actions }
        }
    }

    private func keep(_ page: RefusedPage, asked: [TrackingNumber], at: Date) async {
        let masked = PageRedaction.redact(page.body, charset: page.declaredCharset, numbers: asked)
        let record = NewRefusedPage(
            carrier: page.carrier, reason: page.error.code.rawValue, message: page.error.message,
            url: Self.maskedURL(page.endpoint, numbers: asked), receivedAt: at, charset: page.declaredCharset,
            numbers: asked.count, redacted: masked != nil, body: masked ?? Data())
        do {
            if let id = try await store.keepRefusedPage(record, limits: limits) {
                log.info(
                    "refused page kept",
                    metadata: [
                        "carrier": "\(page.carrier)", "id": .stringConvertible(id),
                        "reason": "\(page.error.code)", "bytes": .stringConvertible(masked?.count ?? 0),
                        // A page whose encoding could not be masked safely keeps only its reason.
                        "masked": .stringConvertible(masked != nil),
                    ])
            }
        } catch {
            failures.report(.keepPage, error, context: ["carrier": "\(page.carrier)"])
        }
    }

    /// The page's address with the asked numbers (in its query) masked.
    static func maskedURL(_ url: URL, numbers: [TrackingNumber]) -> String {
        PageRedaction.redactAddress(url.absoluteString, numbers: numbers)
    }

    /// `kuroneko_carrier_page_changed{carrier}`: 1 while the carrier's pages are judged changed.
    static func record(
        _ degraded: [Carrier: PageHealth.Degraded], carriers: some Collection<Carrier>, into registry: MetricsRegistry
    ) {
        for carrier in Set(carriers) {
            registry.level(
                "kuroneko_carrier_page_changed", [("carrier", carrier.rawValue)],
                help: "1 while the carrier's pages are judged changed (not understood).",
                value: degraded[carrier] == nil ? 0 : 1)
        }
    }

    /// Asks each canary's carrier about it now and every `interval`, at background priority (within the
    /// carrier's politeness budget); what comes back is observed like any other page.
    func runCanaries(service: ShipmentService, interval: Duration) async {
        // No canary configured: nothing to ask, until the server stops (returning early would end the server).
        guard !canaries.isEmpty else { return await untilCancelled() }
        while !Task.isCancelled {
            for (carrier, number) in canaries.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                _ = await service.check(number, carrier: carrier, priority: .background)
            }
            try? await clock.sleep(until: clock.uptime + interval)
        }
    }
}
