/// An audit entry's words for many parcels: how many, then their numbers as far as the entry's 1,000 characters
/// allow, the rest counted (`3 parcels: 1000-0562-2496, …`, `812 finished parcels: 1000-0562-2496, … and 740 more`).
public enum AuditDetail {
    public static let length = 1_000

    /// - Parameters:
    ///   - numbers: the numbers' digits, in the order to name them.
    ///   - total: how many there were, when more than `numbers` (the first of them named).
    ///   - what: what they are, e.g. `finished parcels`.
    public static func numbers(_ numbers: [String], total: Int? = nil, what: String = "parcels") -> String {
        let count = max(total ?? numbers.count, numbers.count)
        let head = "\(count) \(count == 1 && what == "parcels" ? "parcel" : what)"
        guard !numbers.isEmpty else { return head }
        var named: [String] = []
        var size = head.count + 2
        for digits in numbers {
            let shown = grouped(digits)
            let rest = count - named.count - 1
            // Room is kept for the count of the rest after this number.
            let tail = rest > 0 ? " and \(rest) more".count : 0
            guard size + shown.count + 2 + tail <= length else { break }
            named.append(shown)
            size += shown.count + 2
        }
        let more = count - named.count
        return head + ": " + named.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
    }

    /// `1000-0562-2496` for 12 digits; other forms as they are.
    static func grouped(_ digits: String) -> String {
        guard digits.count == 12, digits.allSatisfy(\.isNumber) else { return digits }
        let characters = Array(digits)
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }
}
