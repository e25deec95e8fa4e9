import Foundation
import Kuroneko

/// Judges, per carrier, whether its tracking pages are no longer understood: pure, fed every attempt's outcome.
///
/// A carrier's pages are judged **changed** when
/// - the canary's page is refused (at once), or
/// - pages for ``Policy/distinctNumbers`` distinct numbers are refused within ``Policy/window``, or
/// - over the last hour, at least ``Policy/hourMinimumPages`` pages were answered and at least
///   ``Policy/hourShare`` of them were refused.
///
/// They are judged **read again** when the canary's page is read, or ``Policy/readsToRestore`` pages in a row
/// are read. Only refusals that mean the layout is not the one the parser knows count
/// (``TrackingPageError/Code/meansPageChanged``); a cut-off page or an HTTP error is neither.
struct PageHealth: Sendable {
    struct Policy: Sendable, Hashable {
        var distinctNumbers = 5
        var window: TimeInterval = 600
        var hourShare = 0.5
        var hourMinimumPages = 4
        var readsToRestore = 3
        /// The most attempts of one carrier remembered for the hourly share.
        var remembered = 4_096
    }

    enum Event: Sendable {
        case refused(Carrier, numbers: [TrackingNumber], reason: String, canary: Bool, at: Date)
        case read(Carrier, canary: Bool, at: Date)
    }

    enum Action: Sendable, Hashable {
        case changed(Carrier, reason: String)
        case restored(Carrier)
    }

    struct Degraded: Sendable, Hashable {
        let since: Date
        let reason: String
    }

    private struct CarrierState {
        var refusals: [(number: String, at: Date)] = []
        var attempts: [(at: Date, refused: Bool)] = []
        var degraded: Degraded?
        var readsInARow = 0
    }

    let policy: Policy
    private var carriers: [Carrier: CarrierState] = [:]

    init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The carriers judged changed, with since when and why.
    var degraded: [Carrier: Degraded] { carriers.compactMapValues(\.degraded) }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .refused(let carrier, let numbers, let reason, let canary, let now):
            var state = carriers[carrier] ?? CarrierState()
            defer { carriers[carrier] = state }
            state.readsInARow = 0
            remember(&state, refused: true, at: now)
            state.refusals.removeAll { now.timeIntervalSince($0.at) > policy.window }
            for number in numbers where !state.refusals.contains(where: { $0.number == number.digits }) {
                state.refusals.append((number.digits, now))
            }
            if state.refusals.count > 64 { state.refusals.removeFirst(state.refusals.count - 64) }
            guard state.degraded == nil else { return [] }
            let distinct = state.refusals.count
            let hour = state.attempts.filter { now.timeIntervalSince($0.at) <= 3_600 }
            let refusedShare = hour.isEmpty ? 0 : Double(hour.filter(\.refused).count) / Double(hour.count)
            let why: String
            if canary {
                why = "the canary's page was not understood: \(reason)"
            } else if distinct >= policy.distinctNumbers {
                why = "pages for \(distinct) numbers were not understood within \(Int(policy.window / 60)) minutes: \(reason)"
            } else if hour.count >= policy.hourMinimumPages, refusedShare >= policy.hourShare {
                why = "\(Int((refusedShare * 100).rounded())) % of the last hour's \(hour.count) pages were not understood: "
                    + reason
            } else {
                return []
            }
            state.degraded = Degraded(since: now, reason: why)
            return [.changed(carrier, reason: why)]
        case .read(let carrier, let canary, let now):
            var state = carriers[carrier] ?? CarrierState()
            defer { carriers[carrier] = state }
            remember(&state, refused: false, at: now)
            state.readsInARow += 1
            guard state.degraded != nil, canary || state.readsInARow >= policy.readsToRestore else { return [] }
            state.degraded = nil
            state.refusals = []
            state.attempts = []
            return [.restored(carrier)]
        }
    }

    private func remember(_ state: inout CarrierState, refused: Bool, at now: Date) {
        state.attempts.removeAll { now.timeIntervalSince($0.at) > 3_600 }
        state.attempts.append((now, refused))
        if state.attempts.count > policy.remembered { state.attempts.removeFirst(state.attempts.count - policy.remembered) }
    }
}
