import Foundation
import Logging
import Kuroneko
import KuronekoStore
import Synchronization

/// Records every fresh answer for the watches of its number, whoever asked. An answer whose recording fails
/// (the database out of reach for a moment) is kept, the newest per number, and recorded again before the
/// next answer and on every tick of ``run(tick:)``: a change it carries is late, never lost. At most
/// ``capacity`` numbers wait; past that the oldest is given up (logged and counted as a `record` failure),
/// and its watch finds the change at its next check.
public final class AnswerRecorder: Sendable {
    public static let capacity = 10_000

    private struct Waiting {
        var answers: [TrackingNumber: (shipment: Shipment, served: Data, fetchedAt: Date, order: Int)] = [:]
        var next = 0
    }

    private let store: any WatchStore
    private let nextCheck: @Sendable (Watch, Shipment, Date) -> Date?
    private let changed: @Sendable () -> Void
    private let failures: StoreFailures
    private let waiting = Mutex(Waiting())

    /// - Parameters:
    ///   - nextCheck: when a watch of the number is checked next, given the answer and when it was fetched.
    ///   - changed: called when a recording found a change (the channels' doorbell).
    public init(
        store: any WatchStore, failures: StoreFailures, nextCheck: @escaping @Sendable (Watch, Shipment, Date) -> Date?,
        changed: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.failures = failures
        self.nextCheck = nextCheck
        self.changed = changed
    }

    /// Answers waiting to be recorded again.
    public var waitingCount: Int { waiting.withLock { $0.answers.count } }

    /// Records `shipment`, after any answers still waiting. - Parameter served: its JSON as the API serves it,
    /// when made already.
    public func record(_ shipment: Shipment, served: Data? = nil, fetchedAt: Date) async {
        await retryWaiting()
        await attempt(
            shipment, served: served ?? ServedShipment.encode(shipment, fetchedAt: fetchedAt), fetchedAt: fetchedAt)
    }

    /// Records again what is waiting, oldest first; stops at the first failure (the database is still away).
    public func retryWaiting() async {
        let pending = waiting.withLock { waiting in
            waiting.answers.sorted { $0.value.order < $1.value.order }.map {
                ($0.value.shipment, $0.value.served, $0.value.fetchedAt)
            }
        }
        for (shipment, served, fetchedAt) in pending {
            guard await attempt(shipment, served: served, fetchedAt: fetchedAt) else { return }
        }
    }

    /// Retries what is waiting every `tick` until cancelled.
    public func run(tick: Duration, clock: any TrackingClock) async {
        while !Task.isCancelled {
            if waitingCount > 0 { await retryWaiting() }
            try? await clock.sleep(until: clock.uptime + tick)
        }
    }

    @discardableResult
    private func attempt(_ shipment: Shipment, served: Data, fetchedAt: Date) async -> Bool {
        let number = shipment.trackingNumber
        do {
            let nextCheck = self.nextCheck
            let changes = try await store.record(shipment, served: served, fetchedAt: fetchedAt) { watch, shipment in
                nextCheck(watch, shipment, fetchedAt)
            }
            waiting.withLock { waiting in
                // Recorded: a newer answer that came meanwhile stays.
                if let kept = waiting.answers[number], kept.fetchedAt <= fetchedAt { waiting.answers[number] = nil }
            }
            if !changes.isEmpty { changed() }
            return true
        } catch is CancellationError {
            keep(shipment, served: served, fetchedAt: fetchedAt)
            return false
        } catch {
            failures.report(.record, error, context: ["number": "\(number.masked)", "kept_to_retry": "true"])
            keep(shipment, served: served, fetchedAt: fetchedAt)
            return false
        }
    }

    private func keep(_ shipment: Shipment, served: Data, fetchedAt: Date) {
        let number = shipment.trackingNumber
        let dropped = waiting.withLock { waiting -> TrackingNumber? in
            if let kept = waiting.answers[number], kept.fetchedAt > fetchedAt { return nil }
            waiting.next += 1
            waiting.answers[number] = (shipment, served, fetchedAt, waiting.next)
            guard waiting.answers.count > Self.capacity,
                let oldest = waiting.answers.min(by: { $0.value.order < $1.value.order })?.key
            else { return nil }
            waiting.answers[oldest] = nil
            return oldest
        }
        if let dropped {
            failures.report(
                .record, AnswersOverflow(),
                context: ["number": "\(dropped.masked)", "kept_to_retry": "false"])
        }
    }

    struct AnswersOverflow: Error, CustomStringConvertible {
        var description: String {
            "more than \(AnswerRecorder.capacity) answers wait to be recorded; the oldest is given up"
        }
    }
}
