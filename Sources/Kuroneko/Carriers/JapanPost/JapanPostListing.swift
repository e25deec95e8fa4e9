import Foundation
import Synchronization

/// What Japan Post's search of up to ten numbers says, and what it leaves to ask: the list answer gives each
/// number's latest row only, so a number's detail page (its whole history) is fetched when that row is not the
/// one seen with the history kept, and not otherwise. Pure: the site asks it and does the requests.
enum JapanPostListing {
    /// A list row as far as telling a change goes: the latest row's date, status and office, and the class.
    struct Row: Hashable, Sendable {
        let product: String?
        let label: String
        let dateText: String?
        let place: String?

        init?(_ listed: Shipment) {
            guard let latest = listed.events.last else { return nil }
            product = listed.product
            label = latest.label
            dateText = latest.dateText
            place = latest.place
        }
    }

    /// For each listed shipment (in order): the kept history when its row is the one seen with it, else `nil`
    /// (a number not found, which the list says in full, is its listed answer).
    enum Answer: Equatable {
        /// The listed shipment says all there is (not found, wrong length).
        case listed(Shipment)
        /// Unchanged since the kept history was fetched.
        case kept(Shipment)
        /// Changed, new or never seen: its detail page is fetched.
        case fetch(Row?)
    }

    static func answers(for listed: [Shipment], kept: (TrackingNumber) -> (row: Row, shipment: Shipment)?) -> [Answer] {
        listed.map { shipment in
            guard shipment.events.count > 0, let row = Row(shipment) else {
                return [.notFound, .invalidNumber].contains(shipment.status.code) ? .listed(shipment) : .fetch(nil)
            }
            if let known = kept(shipment.trackingNumber), known.row == row { return .kept(known.shipment) }
            return .fetch(row)
        }
    }
}

/// The histories a Japan Post site fetched, each with the list row seen when it was: past twice ``capacity``
/// the oldest are forgotten down to ``capacity``. Shared by the lookups of one client; a process that starts
/// again fetches each number's history once more.
final class JapanPostHistories: Sendable {
    static let capacity = 20_000

    private struct Kept {
        var entries: [TrackingNumber: (row: JapanPostListing.Row, shipment: Shipment)] = [:]
        var order: [TrackingNumber] = []
    }

    private let kept = Mutex(Kept())

    func history(of number: TrackingNumber) -> (row: JapanPostListing.Row, shipment: Shipment)? {
        kept.withLock { $0.entries[number] }
    }

    /// Keeps `shipment` as the history of its number, seen with `row`; a number not found is forgotten.
    func keep(_ shipment: Shipment, row: JapanPostListing.Row?) {
        kept.withLock { kept in
            guard let row else {
                kept.entries[shipment.trackingNumber] = nil
                return
            }
            if kept.entries.updateValue((row, shipment), forKey: shipment.trackingNumber) == nil {
                kept.order.append(shipment.trackingNumber)
            }
            // Forgotten in halves, so the bound costs nothing per history kept.
            if kept.order.count > Self.capacity * 2 {
                let dropped = kept.order.prefix(kept.order.count - Self.capacity)
                for number in dropped { kept.entries[number] = nil }
                kept.order.removeFirst(dropped.count)
            }
        }
    }
}
