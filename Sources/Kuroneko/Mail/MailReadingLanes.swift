import Dispatch
import Foundation
import Synchronization

/// Reads mail off Swift's cooperative thread pool. Reading one mail is pure CPU work of up to about a second
/// (the largest allowed, of the worst shape): on the pool it would hold one of its few threads (two on a
/// two-core machine) and every request behind it. Here at most `lanes` mails are read at once, on threads of a
/// queue of their own; up to `waiting` more wait their turn; past that, ``MailReadingBusy`` at once (the
/// server's 503 with `Retry-After`).
public final class MailReadingLanes: Sendable {
    public let lanes: Int
    public let waiting: Int
    private let queue = DispatchQueue(label: "kuroneko.mail-reading", qos: .utility, attributes: .concurrent)
    private let state: Mutex<State>

    private struct State {
        var reading = 0
        var queued: [CheckedContinuation<Bool, Never>] = []
    }

    public init(lanes: Int = 2, waiting: Int = 16) {
        self.lanes = max(1, lanes)
        self.waiting = max(0, waiting)
        state = Mutex(State())
    }

    /// Mails being read now, and waiting.
    public var load: (reading: Int, waiting: Int) { state.withLock { ($0.reading, $0.queued.count) } }

    /// `raw` read by ``ShippingMailReader`` on a lane.
    public func read(_ raw: Data, limits: MailLimits = MailLimits()) async throws(MailReadingBusy) -> ShippingMail {
        try await run { ShippingMailReader.read(raw, limits: limits) }
    }

    /// Each message of a file (an mbox, or one `.eml`) read on a lane, one after another.
    public func readAll(_ file: Data, limits: MailLimits = MailLimits()) async throws(MailReadingBusy) -> [ShippingMail] {
        try await run { Mailbox.messages(in: file).map { ShippingMailReader.read($0, limits: limits) } }
    }

    /// `work` run on a lane when one is free.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(MailReadingBusy) -> T {
        try await enter()
        defer { leave() }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    private func enter() async throws(MailReadingBusy) {
        // A lane is handed from one reader to the next by `leave()` (`reading` stays counted), so none can be
        // taken in between.
        let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let decided = state.withLock { state -> Bool? in
                if state.reading < lanes {
                    state.reading += 1
                    return true
                }
                guard state.queued.count < waiting else { return false }
                state.queued.append(continuation)
                return nil
            }
            if let decided { continuation.resume(returning: decided) }
        }
        guard admitted else { throw MailReadingBusy(lanes: lanes, waiting: waiting) }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if state.queued.isEmpty {
                state.reading -= 1
                return nil
            }
            return state.queued.removeFirst()
        }
        next?.resume(returning: true)
    }
}

/// Every lane is reading and the wait is full.
public struct MailReadingBusy: Error, Sendable, CustomStringConvertible {
    public let lanes: Int
    public let waiting: Int
    public var description: String {
        "\(lanes) mail\(lanes == 1 ? " is" : "s are") being read and \(waiting) more wait; try again in a second"
    }
}
