import Foundation
import KuronekoNotify
import KuronekoStore

extension WebhookPayload {
    /// The body a channel sends for a recorded change (the store's ``StatusChange``).
    public static func body(for change: StatusChange) -> Data {
        body(id: change.id, createdAt: change.createdAt, previous: change.previous, shipment: change.shipment)
    }
}
