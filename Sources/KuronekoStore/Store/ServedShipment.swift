import Foundation
import Kuroneko

/// A shipment as the API serves it: the library's JSON plus `fetched_at`, when Yamato was asked.
public struct ServedShipment: Encodable {
    public let shipment: Shipment
    public let fetchedAt: Date

    public init(shipment: Shipment, fetchedAt: Date) {
        self.shipment = shipment
        self.fetchedAt = fetchedAt
    }

    private enum CodingKeys: String, CodingKey {
        case fetchedAt = "fetched_at"
    }

    public func encode(to encoder: any Encoder) throws {
        try shipment.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JapanDateTime(fetchedAt).iso8601, forKey: .fetchedAt)
    }

    /// The JSON bytes, keys sorted; a shipment always encodes, so failure yields an empty object.
    public static func encode(_ shipment: Shipment, fetchedAt: Date) -> Data {
        (try? JSONEncoder.kuroneko().encode(ServedShipment(shipment: shipment, fetchedAt: fetchedAt)))
            ?? Data("{}".utf8)
    }
}
