import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore
import Synchronization

/// The shipments fetched recently, bounded in number (least recently used go first) and in age (a time to
/// live by status: terminal parcels change no more, moving ones do).
///
/// Cache hits are answered on any server thread at once, and every hit moves its entry to the front, so a
/// large cache is cut into 16 shards by number, each with its own lock and its own least-recently-used
/// order (the capacity split evenly between them): two threads then rarely wait for each other. A cache
/// of fewer than 1,024 entries is one shard, with one exact order.
public final class ShipmentCache: Sendable {
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
    ///
    /// The fields live in one immutable object: handing an entry out of the cache (every cache hit, on any
    /// server thread) then retains one reference, not each string and array of the shipment.
    public struct Entry: Sendable, Hashable {
        private let storage: Storage

        public var shipment: Shipment { storage.shipment }
        public var fetchedAt: Date { storage.fetchedAt }
        public var expiresAt: Date { storage.expiresAt }
        public var json: Data { storage.json }
        /// A strong entity tag over `json`, computed once with it.
        public var etag: String { storage.etag }

        init(shipment: Shipment, fetchedAt: Date, expiresAt: Date) {
            let json = ServedShipment.encode(shipment, fetchedAt: fetchedAt)
            storage = Storage(
                shipment: shipment, fetchedAt: fetchedAt, expiresAt: expiresAt, json: json,
                etag: ConditionalRequestMiddleware.tag(for: json))
        }

        public func isFresh(at now: Date) -> Bool { now < expiresAt }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.storage === rhs.storage
                || (lhs.shipment == rhs.shipment && lhs.fetchedAt == rhs.fetchedAt && lhs.expiresAt == rhs.expiresAt)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(shipment)
            hasher.combine(fetchedAt)
            hasher.combine(expiresAt)
        }

        private final class Storage: Sendable {
            let shipment: Shipment
            let fetchedAt: Date
            let expiresAt: Date
            let json: Data
            let etag: String

            init(shipment: Shipment, fetchedAt: Date, expiresAt: Date, json: Data, etag: String) {
                self.shipment = shipment
                self.fetchedAt = fetchedAt
                self.expiresAt = expiresAt
                self.json = json
                self.etag = etag
            }
        }
    }

    public let policy: Policy
    private let shards: [Shard]

    public init(policy: Policy = Policy()) {
        self.policy = policy
        let count = policy.capacity >= 1_024 ? 16 : 1
        let each = (policy.capacity + count - 1) / count
        shards = (0..<count).map { _ in Shard(capacity: each) }
    }

    /// The entry for a number, fresh or not, marking it recently used.
    public func entry(for number: TrackingNumber) -> Entry? {
        shard(for: number).state.withLock { $0.entry(for: number) }
    }

    /// Stores a shipment fetched at `fetchedAt`.
    @discardableResult
    public func store(_ shipment: Shipment, fetchedAt: Date) -> Entry {
        let ttl = policy.timeToLive(for: shipment)
        let entry = Entry(
            shipment: shipment, fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(ttl / .seconds(1)))
        shard(for: shipment.trackingNumber).state.withLock { $0.store(entry) }
        return entry
    }

    public var count: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.entries.count } }
    }

    /// The shard of a number: by the two characters before its last (for 12 digits the tenth and eleventh;
    /// the last, a check digit, takes only seven values). Every form has at least ten characters.
    private func shard(for number: TrackingNumber) -> Shard {
        guard shards.count > 1 else { return shards[0] }
        let digits = number.digits.utf8
        var index = digits.index(digits.endIndex, offsetBy: -3)
        let tens = Int(digits[index] &- UInt8(ascii: "0"))
        index = digits.index(after: index)
        let ones = Int(digits[index] &- UInt8(ascii: "0"))
        return shards[(tens * 10 + ones) % shards.count]
    }

    /// One lock and one least-recently-used order.
    private final class Shard: Sendable {
        let state: Mutex<LeastRecentlyUsed>

        init(capacity: Int) {
            state = Mutex(LeastRecentlyUsed(capacity: capacity))
        }
    }

    /// Entries by number, in a list from most to least recently used.
    private struct LeastRecentlyUsed {
        let capacity: Int
        var entries: [TrackingNumber: Node] = [:]
        var head: Node?
        var tail: Node?

        init(capacity: Int) {
            self.capacity = max(1, capacity)
        }

        mutating func entry(for number: TrackingNumber) -> Entry? {
            guard let node = entries[number] else { return nil }
            moveToFront(node)
            return node.entry
        }

        mutating func store(_ entry: Entry) {
            let number = entry.shipment.trackingNumber
            if let node = entries[number] {
                node.entry = entry
                moveToFront(node)
                return
            }
            let node = Node(entry: entry)
            entries[number] = node
            insertAtFront(node)
            if entries.count > capacity, let last = tail {
                unlink(last)
                entries[last.entry.shipment.trackingNumber] = nil
            }
        }

        private mutating func insertAtFront(_ node: Node) {
            node.next = head
            node.previous = nil
            head?.previous = node
            head = node
            if tail == nil { tail = node }
        }

        private mutating func unlink(_ node: Node) {
            node.previous?.next = node.next
            node.next?.previous = node.previous
            if head === node { head = node.next }
            if tail === node { tail = node.previous }
            node.previous = nil
            node.next = nil
        }

        private mutating func moveToFront(_ node: Node) {
            guard head !== node else { return }
            unlink(node)
            insertAtFront(node)
        }
    }

    /// Strong towards the tail; towards the head an unowned pointer, so the list holds no cycle. A node is
    /// unlinked (under its shard's lock) before the dictionary and its predecessor let go of it, so the
    /// pointer never outlives its target; a weak one would cost a side table and atomic loads on every hit.
    private final class Node {
        var entry: Entry
        unowned(unsafe) var previous: Node?
        var next: Node?

        init(entry: Entry) {
            self.entry = entry
        }
    }
}
