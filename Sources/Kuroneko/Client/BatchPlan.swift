/// How a list of numbers becomes upstream requests: each distinct number once, at most `batchSize` per
/// request, and results handed back in the caller's order (duplicates included).
public struct BatchPlan: Sendable, Hashable {
    /// The most numbers the tracking form takes in one POST (`number01`…`number10`).
    public static let maximumBatchSize = 10

    /// The caller's numbers, in the caller's order.
    public let requested: [TrackingNumber]
    /// The distinct numbers, in order of first appearance, cut into requests.
    public let batches: [[TrackingNumber]]

    public init(_ numbers: [TrackingNumber], batchSize: Int = BatchPlan.maximumBatchSize) {
        let size = min(max(1, batchSize), Self.maximumBatchSize)
        var seen = Set<TrackingNumber>()
        let distinct = numbers.filter { seen.insert($0).inserted }
        requested = numbers
        batches = stride(from: 0, to: distinct.count, by: size).map {
            Array(distinct[$0..<min($0 + size, distinct.count)])
        }
    }

    /// Puts the answers of all batches back into the caller's order.
    /// - Parameter answers: each batch's shipments, in the order of ``batches``.
    public func assemble(_ answers: [[Shipment]]) -> [Shipment] {
        var byNumber: [TrackingNumber: Shipment] = [:]
        for shipment in answers.joined() {
            byNumber[shipment.trackingNumber] = shipment
        }
        return requested.compactMap { byNumber[$0] }
    }
}
