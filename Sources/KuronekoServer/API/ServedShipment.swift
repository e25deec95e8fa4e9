import Foundation
import Kuroneko

/// A shipment as the API serves it: the library's JSON plus `fetched_at`, when Yamato was asked.
struct ServedShipment: Encodable {
    let entry: ShipmentCache.Entry

    private enum CodingKeys: String, CodingKey {
        case fetchedAt = "fetched_at"
    }

    func encode(to encoder: any Encoder) throws {
        try entry.shipment.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ServedShipment.timestamp(entry.fetchedAt), forKey: .fetchedAt)
    }

    /// ISO 8601 in Japan time, like the shipment's own times.
    static func timestamp(_ date: Date) -> String {
        JapanDateTime(date).iso8601
    }
}

/// The answer to a lookup of several numbers: shipments in request order, and what could not be answered.
struct ShipmentList: Encodable {
    let shipments: [ServedShipment]
    let errors: [LookupError]
}

/// Why one input of a multi-number lookup has no shipment.
struct LookupError: Encodable {
    /// The input as the client sent it.
    let input: String
    /// `invalid_number` (with the number's own reason code in `reason`), or an upstream failure.
    let code: String
    let detail: String
}
