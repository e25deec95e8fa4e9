import Foundation
import Kuroneko

/// Lookup failures of a run, grouped by cause and said at the end in at most ``maximumLines`` lines: one line
/// per cause, naming the number when it is the only one (`3277-5445-9830: …`) or counting them
/// (`this client does not serve japanpost: 10,000 numbers (9123-4567-8904, …)`), and a last line counting what
/// did not fit. Bounded: at most ``maximumCauses`` causes are kept apart, each with its first numbers.
struct FailureDigest {
    static let maximumLines = 20
    static let maximumCauses = 1_000

    private struct Cause {
        let text: String
        var count: Int
        var examples: [String]
    }

    private var causes: [Cause] = []
    private var index: [String: Int] = [:]
    private var uncounted = 0
    private(set) var total = 0

    mutating func add(_ number: TrackingNumber, _ message: String) {
        total += 1
        // The cause without the number it names, so one cause of many numbers is one line.
        let text = message.replacingOccurrences(of: number.formatted, with: "…")
            .replacingOccurrences(of: number.digits, with: "…")
        if let at = index[text] {
            causes[at].count += 1
            if causes[at].examples.count < 3 { causes[at].examples.append(number.formatted) }
            return
        }
        guard causes.count < Self.maximumCauses else {
            uncounted += 1
            return
        }
        index[text] = causes.count
        causes.append(Cause(text: text, count: 1, examples: [number.formatted]))
    }

    /// The lines to print (without the `kuroneko: ` prefix).
    var lines: [String] {
        var lines: [String] = []
        let shown = causes.prefix(Self.maximumLines - (causes.count > Self.maximumLines ? 1 : 0))
        for cause in shown {
            if cause.count == 1 {
                lines.append("\(cause.examples[0]): \(cause.text)")
            } else {
                let more = cause.count - cause.examples.count
                lines.append(
                    "\(cause.text): \(Self.formatted(cause.count)) numbers (\(cause.examples.joined(separator: ", "))"
                        + (more > 0 ? ", and \(Self.formatted(more)) more)" : ")"))
            }
        }
        let hidden = causes.dropFirst(shown.count)
        let rest = hidden.reduce(0) { $0 + $1.count } + uncounted
        if rest > 0 {
            lines.append(
                "\(Self.formatted(rest)) more numbers could not be looked up, for "
                    + "\(hidden.count + (uncounted > 0 ? 1 : 0)) other causes")
        }
        return lines
    }

    private static func formatted(_ number: Int) -> String {
        number.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }
}
