import Synchronization

/// The bytes of large request bodies held at once, server-wide: a body beyond the anonymous allowance reserves
/// its size (its declared `Content-Length`, or step by step as a chunked one arrives) before it is read, and
/// gives it back when its request completes. Past ``total`` (or past ``unconfirmedShare`` for callers whose
/// credential is not confirmed) a reservation fails and the request is answered 503 with `Retry-After`.
public final class BodyBudget: Sendable {
    /// The most bytes of large bodies held at once.
    public let total: Int
    /// The most of ``total`` that callers with an unconfirmed credential may hold.
    public let unconfirmedShare: Int
    private let held = Mutex<(all: Int, unconfirmed: Int)>((0, 0))

    public init(total: Int, unconfirmedShare: Int) {
        self.total = max(0, total)
        self.unconfirmedShare = min(max(0, unconfirmedShare), self.total)
    }

    /// Takes `bytes` from the budget; `false` (and nothing taken) when they do not fit.
    public func reserve(_ bytes: Int, unconfirmed: Bool) -> Bool {
        guard bytes > 0 else { return true }
        return held.withLock { held in
            guard bytes <= total - held.all else { return false }
            if unconfirmed {
                guard bytes <= unconfirmedShare - held.unconfirmed else { return false }
                held.unconfirmed += bytes
            }
            held.all += bytes
            return true
        }
    }

    /// Gives back what ``reserve(_:unconfirmed:)`` took.
    public func release(_ bytes: Int, unconfirmed: Bool) {
        guard bytes > 0 else { return }
        held.withLock { held in
            held.all = max(0, held.all - bytes)
            if unconfirmed { held.unconfirmed = max(0, held.unconfirmed - bytes) }
        }
    }

    /// The bytes held now, in all and by unconfirmed callers.
    public var inUse: (all: Int, unconfirmed: Int) { held.withLock { $0 } }
}

extension BodyBudget {
    /// The bytes held now, by all callers and by those not confirmed yet, and the limit, into `/metrics`.
    public func record(into registry: MetricsRegistry) {
        let held = inUse
        let help = "Bytes of request bodies larger than the anonymous allowance held now."
        registry.level("kuroneko_http_body_bytes_held", [("caller", "all")], help: help, value: Double(held.all))
        registry.level(
            "kuroneko_http_body_bytes_held", [("caller", "unconfirmed")], help: help, value: Double(held.unconfirmed))
        registry.level(
            "kuroneko_http_body_budget_bytes", help: "The most bytes of such bodies held at once; past it, 503.",
            value: Double(total))
    }
}
