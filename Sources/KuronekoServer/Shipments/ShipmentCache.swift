import Foundation
import Kuroneko
import KuronekoHTTP

/// The shipments fetched recently, bounded in number (least recently used go first) and in age (a time to
/// live by status: terminal parcels change no more, moving ones do).
///
/// `@unchecked Sendable`: all state is guarded by `lock`, so cache hits can be answered on any thread.
public final class ShipmentCache: @unchecked Sendable {
    /// How long answers stay fresh, and how many are kept.
    public struct Policy: Sendable, Hashable {
        /// The most shipments kept; the least recently used is dropped first.
        public var capacity: Int
        /// For delivered parcels and completed returns.
        public var terminalTTL: Duration
        /// For parcels still moving (and numbers not registered yet).
        public var activeTTL: Duration
        /// For numbers Yamato calls invalid (伝票番号誤り): they will not become valid.
        public var invalidTTL: Duration

        /// - Parameters: defaults 10,000 entries; terminal 24 h, active 5 min, invalid 24 h.
        public init(
            capacity: Int = 10_000, terminalTTL: Duration = .seconds(86_400), activeTTL: Duration = .seconds(300),
            invalidTTL: Duration = .seconds(86_400)
        ) {
            self.capacity = max(1, capacity)
            self.terminalTTL = terminalTTL
            self.activeTTL = activeTTL
            self.invalidTTL = invalidTTL
        }

        func timeToLive(for shipment: Shipment) -> Duration {
            if shipment.status.code == .invalidNumber { return invalidTTL }
            return shipment.status.isTerminal ? terminalTTL : activeTTL
        }
    }

    /// A cached shipment, when it was fetched, and its JSON as the API serves it (encoded once, when stored,
    /// so that a cache hit costs no encoding).
    public struct Entry: Sendable, Hashable {
        public let shipment: Shipment
        public let fetchedAt: Date
        public let expiresAt: Date
        public let json: Data
        /// A strong entity tag over `json`, computed once with it.
        public let etag: String

        init(shipment: Shipment, fetchedAt: Date, expiresAt: Date) {
            self.shipment = shipment
            self.fetchedAt = fetchedAt
            self.expiresAt = expiresAt
            json = ServedShipment.encode(shipment, fetchedAt: fetchedAt)
            etag = ConditionalRequestMiddleware.tag(for: json)
        }

        public func isFresh(at now: Date) -> Bool { now < expiresAt }
    }

    public let policy: Policy
    private let lock = NSLock()
    private var entries: [TrackingNumber: Node] = [:]
    /// Most recently used first.
    private var head: Node?
    private var tail: Node?

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The entry for a number, fresh or not, marking it recently used.
    public func entry(for number: TrackingNumber) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard let node = entries[number] else { return nil }
        moveToFront(node)
        return node.entry
    }

    /// Stores a shipment fetched at `fetchedAt`.
    @discardableResult
    public func store(_ shipment: Shipment, fetchedAt: Date) -> Entry {
        let ttl = policy.timeToLive(for: shipment)
        let entry = Entry(
            shipment: shipment, fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(ttl / .seconds(1)))
        lock.lock()
        defer { lock.unlock() }
        if let node = entries[shipment.trackingNumber] {
            node.entry = entry
            moveToFront(node)
            return entry
        }
        let node = Node(entry: entry)
        entries[shipment.trackingNumber] = node
        insertAtFront(node)
        if entries.count > policy.capacity, let last = tail {
            unlink(last)
            entries[last.entry.shipment.trackingNumber] = nil
        }
        return entry
    }

    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    private final class Node {
        var entry: Entry
        var previous: Node?
        var next: Node?

        init(entry: Entry) {
            self.entry = entry
        }
    }

    private func insertAtFront(_ node: Node) {
        node.next = head
        node.previous = nil
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }

    private func moveToFront(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        insertAtFront(node)
    }
}
