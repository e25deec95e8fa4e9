import Kuroneko

/// Valid tracking numbers made to order: eleven digits and their check digit (the eleven modulo 7).
public enum ValidNumbers {
    /// The valid number whose first eleven digits are `first` (taken modulo 10^11).
    public static func number(_ first: UInt64) -> TrackingNumber {
        let eleven = first % 100_000_000_000
        let digits = String(repeating: "0", count: 11 - String(eleven).count) + String(eleven) + String(eleven % 7)
        guard let number = try? TrackingNumber(parsing: digits) else {
            preconditionFailure("\(digits) is built with its own check digit")
        }
        return number
    }

    /// `count` distinct valid numbers, spaced so that they spread over the simulator's scenarios.
    public static func numbers(_ count: Int, from start: UInt64 = 10_000_000_000) -> [TrackingNumber] {
        (0..<UInt64(count)).map { number(start + $0 * 7_919) }
    }
}
