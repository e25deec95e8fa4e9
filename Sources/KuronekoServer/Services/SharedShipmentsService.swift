import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore
import Logging

/// On a shared database, caches the shipments other servers record, so every server serves the latest answer
/// any of them got. When that changes the status this server serves for a number, one event line:
/// `shared last4=9830 status=out_for_delivery` (the number's last four digits only); each time listening starts
/// (at first, and after a lost connection is made again), `shared listening: …`.
struct SharedShipmentsService: BackgroundService {
    let name = "shared-shipments"
    let shared: any SharedDatabase
    let service: ShipmentService
    let events: Logger?
    let failures: StoreFailures

    func run() async {
        let stream = shared.shipmentStream { [service, events, failures] number, read in
            let latest: LatestShipment
            switch read {
            case .success(let found): latest = found
            case .failure(let error):
                return failures.report(.readShared, error, context: ["number": "\(number.masked)"])
            }
            guard let shipment = latest.shipment, service.adopt(shipment, fetchedAt: latest.fetchedAt) else { return }
            events?.info(
                "shared",
                metadata: ["last4": .string(String(number.digits.suffix(4))), "status": .string(shipment.status.code.rawValue)])
        } failed: { [failures] error in
            failures.report(.sharedListener, error)
        } listening: { [events] in
            events?.info("shared listening: other servers' answers reach this one")
        }
        // The stream runs on a thread of its own meanwhile.
        await untilCancelled()
        await awaitBlocking { stream.stop() }
    }
}
