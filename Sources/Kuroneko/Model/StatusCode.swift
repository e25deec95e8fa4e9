/// The normalised meaning of a Yamato status label, the same for every wording of it.
public enum StatusCode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case infoReceived = "info_received"
    case inTransit = "in_transit"
    case outForDelivery = "out_for_delivery"
    case availableForPickup = "available_for_pickup"
    case attemptFailed = "attempt_failed"
    case delivered
    case exception
    case returned
    case notFound = "not_found"
    case invalidNumber = "invalid_number"
    /// A label nobody has catalogued yet; the Japanese label is still reported as written.
    case unknown

    /// The wire form, as in the JSON: `in_transit`, not the Swift case name.
    public var description: String { rawValue }
}
