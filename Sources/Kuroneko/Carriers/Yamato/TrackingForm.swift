import Foundation

/// The form body the tracking page takes: `number00=1` (ask for details), then `number01`…`number10`.
enum TrackingForm {
    static let contentType = "application/x-www-form-urlencoded"

    /// - Precondition: at most ``BatchPlan/maximumBatchSize`` numbers; ``BatchPlan`` guarantees it.
    static func body(for numbers: [TrackingNumber]) -> Data {
        var fields = ["number00=1"]
        for (index, number) in numbers.prefix(BatchPlan.maximumBatchSize).enumerated() {
            let position = index + 1
            fields.append("number\(position < 10 ? "0" : "")\(position)=\(number.digits)")
        }
        return Data(fields.joined(separator: "&").utf8)
    }
}
