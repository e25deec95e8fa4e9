import Foundation
import Kuroneko
import KuronekoStore

/// Why one input of a multi-number lookup has no shipment.
struct LookupError: Encodable {
    /// The input as the client sent it.
    let input: String
    /// `invalid_number`, or `upstream_<status>` when Yamato could not answer.
    let code: String
    let detail: String
}

/// The answer to a lookup of several numbers, `{"errors": [...], "shipments": [...]}`, assembled from the
/// shipments' stored JSON so that nothing is encoded twice.
enum ShipmentList {
    static func json(shipments: [ShipmentCache.Entry], errors: [LookupError]) -> Data {
        let encoder = JSONEncoder.kuroneko()
        var body = Data(#"{"errors":"#.utf8)
        body.append((try? encoder.encode(errors)) ?? Data("[]".utf8))
        body.append(Data(#","shipments":["#.utf8))
        for (index, entry) in shipments.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(entry.json)
        }
        body.append(Data("]}".utf8))
        return body
    }
}
