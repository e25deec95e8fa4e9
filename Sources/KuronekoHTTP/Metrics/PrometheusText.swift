/// Pieces of the Prometheus text exposition format (version 0.0.4).
public enum PrometheusText {
    /// A label value with backslash, double quote and line feed escaped, as the format requires.
    public static func escape(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `# HELP`, `# TYPE` and one sample without labels.
    public static func single(_ name: String, type: String, help: String, value: String) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
    }
}

/// A Prometheus histogram: cumulative bucket counts, sum and count.
public struct Histogram: Sendable {
    public let bounds: [Double]
    private var counts: [Int]
    private var sum = 0.0
    private var total = 0

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    /// Counts the value in the first bucket it fits (the rendering adds them up, as the format wants).
    public mutating func observe(_ value: Double) {
        var index = 0
        while index < bounds.count, value > bounds[index] { index += 1 }
        if index < counts.count { counts[index] += 1 }
        sum += value
        total += 1
    }

    /// The values observed.
    public var count: Int { total }

    /// Adds another histogram's observations (with the same bounds) to this one.
    public mutating func add(_ other: Histogram) {
        for index in counts.indices where index < other.counts.count { counts[index] += other.counts[index] }
        sum += other.sum
        total += other.total
    }

    /// The sample lines (no HELP or TYPE), with `labels` (already escaped, `key="value",…`) before `le`.
    public func samples(name: String, labels: String = "") -> [String] {
        let prefix = labels.isEmpty ? "" : labels + ","
        var lines: [String] = []
        var cumulative = 0
        for (bound, count) in zip(bounds, counts) {
            cumulative += count
            lines.append("\(name)_bucket{\(prefix)le=\"\(bound.formatted(.number.grouping(.never)))\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{\(prefix)le=\"+Inf\"} \(total)")
        let braces = labels.isEmpty ? "" : "{\(labels)}"
        lines.append("\(name)_sum\(braces) \(sum)")
        lines.append("\(name)_count\(braces) \(total)")
        return lines
    }

    /// HELP, TYPE and the samples.
    public func render(name: String, help: String) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) histogram"] + samples(name: name)
    }
}
