import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// The server's background jobs, each a named ``Service`` the runner starts in order of dependence and stops in
/// reverse (``ServiceGroup``). Each works until its task is cancelled; a store failure is reported and tried
/// again at its next turn, never the end of the job.

/// Checks the watches that are due (``WatchPoller``).
struct PollerService: BackgroundService {
    let name = "poller"
    let poller: WatchPoller
    let tick: Duration

    func run() async { await poller.run(tick: tick) }
}

/// Sends webhooks and channel announcements as they come due, at once when the doorbell rings.
struct OutboxService: BackgroundService {
    let name = "outbox"
    let outbox: OutboxDeliverer
    let tick: Duration
    let doorbell: Doorbell

    func run() async { await outbox.run(tick: tick, doorbell: doorbell) }
}

/// Records fresh answers for the watches of their number (``AnswerRecorder``).
struct RecorderService: BackgroundService {
    let name = "recorder"
    let recorder: AnswerRecorder
    let tick: Duration
    let clock: any TrackingClock

    func run() async { await recorder.run(tick: tick, clock: clock) }
}

/// Judges whether each carrier's pages are still understood and reads them again (``PageWatch``).
struct PageWatchService: BackgroundService {
    let name = "page-watch"
    let pageWatch: PageWatch
    let tick: Duration

    func run() async { await pageWatch.run(tick: tick) }
}

/// Asks each carrier's canary number every interval, so a changed page is noticed without lookups.
struct CanaryService: BackgroundService {
    let name = "canaries"
    let pageWatch: PageWatch
    let service: ShipmentService
    let interval: Duration

    func run() async { await pageWatch.runCanaries(service: service, interval: interval) }
}

/// Reads the mailbox every interval (``MailboxReader``).
struct MailboxService: BackgroundService {
    let name = "mailbox"
    let reader: MailboxReader
    let interval: Duration

    func run() async { await reader.run(every: interval) }
}

/// Announces the delivery windows starting within `lead`, every tick.
struct ArrivalsService: BackgroundService {
    let name = "arrivals"
    let store: any WatchStore
    let clock: any TrackingClock
    let lead: Duration
    let tick: Duration
    let failures: StoreFailures

    func run() async {
        while !Task.isCancelled {
            do {
                try await store.announceArrivals(now: clock.now, lead: lead / .seconds(1), limit: 500)
            } catch {
                // Tried again at the next tick: a window is announced once, whenever it is.
                failures.report(.announceArrivals, error)
            }
            try? await clock.sleep(until: clock.uptime + tick)
        }
    }
}

/// Every minute, the numbers still unknown to their carrier past the grace become a problem, parcels with no
/// new event for longer than their status allows are marked stalled, parcels past their planned delivery late,
/// and parcels kept after a missed delivery whose last day is tomorrow are reminded of; each announced once.
/// Removals older than ``WatchChanges/removalsKept`` are forgotten.
struct WaitingService: BackgroundService {
    let name = "waiting"
    let store: any WatchStore
    let clock: any TrackingClock
    let failures: StoreFailures
    let announced: @Sendable () -> Void

    func run() async {
        while !Task.isCancelled {
            do {
                if try await store.promoteWaiting(now: clock.now, limit: 500) > 0 { announced() }
            } catch {
                failures.report(.promoteWaiting, error)
            }
            do {
                if try await store.markStalled(now: clock.now, limit: 500) > 0 { announced() }
            } catch {
                failures.report(.markStalled, error)
            }
            do {
                if try await store.markOverdue(now: clock.now, limit: 500) > 0 { announced() }
            } catch {
                failures.report(.markOverdue, error)
            }
            do {
                if try await store.announceKeptReminders(now: clock.now, limit: 500) > 0 { announced() }
            } catch {
                failures.report(.keptReminders, error)
            }
            do {
                // Removals older than a changes cursor is followed for (the list then reads again).
                _ = try await store.forgetRemovals(
                    before: clock.now.addingTimeInterval(-WatchChanges.removalsKept), limit: 1_000)
            } catch {
                failures.report(.forgetRemovals, error)
            }
            try? await clock.sleep(until: clock.uptime + .seconds(60))
        }
    }
}

/// Every hour (and once at start), removes finished watches last checked longer ago than `after`, 1,000 at a
/// time until none is left, saying how many went.
struct ForgetFinishedService: BackgroundService {
    let name = "forget-finished"
    let store: any WatchStore
    let clock: any TrackingClock
    let after: Duration
    let failures: StoreFailures
    let told: @Sendable (Int) -> Void

    func run() async {
        while !Task.isCancelled {
            var removed = 0
            while !Task.isCancelled {
                do {
                    let batch = try await store.forgetFinished(
                        checkedBefore: clock.now.addingTimeInterval(-(after / .seconds(1))), limit: 1_000)
                    removed += batch
                    if batch < 1_000 { break }
                } catch {
                    failures.report(.forgetFinished, error)
                    break
                }
            }
            if removed > 0 { told(removed) }
            try? await clock.sleep(until: clock.uptime + .seconds(3_600))
        }
    }
}

/// Looks at the certificate and key files every ``interval``: a renewal written there is served within it,
/// without SIGHUP; what changed (or why the new pair was refused) is told in one line.
struct CertificateReloadService: BackgroundService {
    let name = "certificates"
    static let interval: Duration = .seconds(10)
    let told: @Sendable (String) -> Void

    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            if Task.isCancelled { return }
            if let line = TLSCertificates.shared.reloadIfChanged() { told(line) }
        }
    }
}

/// Suspends until the current task is cancelled (at once when it already is), without waking meanwhile.
func untilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    await withTaskCancellationHandler {
        for await _ in stream {}
    } onCancel: {
        continuation.finish()
    }
}

/// Keeps the accounts' tables bounded, hourly: audit entries over a year old, and past the newest 100,000 of a
/// list; sessions past their idle or longest lifetime; invitations expired over a day ago.
struct AuditLogService: BackgroundService {
    let name = "audit-log"
    let accounts: any AccountStore
    let clock: any TrackingClock
    let failures: StoreFailures
    static let keptFor: TimeInterval = 365 * 86_400
    static let keptPerList = 100_000

    func run() async {
        while !Task.isCancelled {
            do {
                let now = clock.now
                _ = try await accounts.forgetAudit(
                    olderThan: now.addingTimeInterval(-Self.keptFor), keepPerList: Self.keptPerList)
                _ = try await accounts.forgetExpired(
                    idleBefore: now.addingTimeInterval(-SessionCookie.idleLifetime),
                    madeBefore: now.addingTimeInterval(-SessionCookie.longestLifetime),
                    invitationsBefore: now.addingTimeInterval(-86_400))
            } catch {
                failures.report(.auditLog, error)
            }
            try? await clock.sleep(until: clock.uptime + .seconds(3_600))
        }
    }
}
