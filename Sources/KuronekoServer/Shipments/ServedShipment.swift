import Foundation
import Kuroneko

/// A shipment as the API serves it: the library's JSON plus `fetched_at`, when Yamato was asked.
struct ServedShipment: Encodable {
    let shipment: Shipment
    let fetchedAt: Date

    private enum CodingKeys: String, CodingKey {
        case fetchedAt = "fetched_at"
    }

    func encode(to encoder: any Encoder) throws {
        try shipment.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JapanDateTime(fetchedAt).iso8601, forKey: .fetchedAt)
    }

    /// The JSON bytes, keys sorted; a shipment always encodes, so failure yields an empty object.
    static func encode(_ shipment: Shipment, fetchedAt: Date) -> Data {
        (try? JSONEncoder.kuroneko().encode(ServedShipment(shipment: shipment, fetchedAt: fetchedAt)))
            ?? Data("{}".utf8)
    }
}

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
