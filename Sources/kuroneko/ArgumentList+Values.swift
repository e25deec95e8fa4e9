import Foundation

// Typed option values, shared by every command: each reads `--name VALUE`, else (where given) an environment
// variable, and refuses a bad value with one line naming the option or variable and what would be right.
extension ArgumentList {
    /// A text value.
    mutating func text(_ name: String, environment variable: String? = nil) throws(CommandFailure) -> String? {
        try value(name, variable)?.text
    }

    /// A number within `range`.
    mutating func number(_ name: String, in range: ClosedRange<Double>, environment variable: String? = nil)
        throws(CommandFailure) -> Double?
    {
        guard let (text, source) = try value(name, variable) else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not a number from \(range.lowerBound.formatted()) to "
                    + "\(range.upperBound.formatted())")
        }
        return number
    }

    /// A duration in seconds within `range`.
    mutating func seconds(_ name: String, in range: ClosedRange<Double>, environment variable: String? = nil)
        throws(CommandFailure) -> Duration?
    {
        try number(name, in: range, environment: variable).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// An http(s) URL, such as the tracking form to post to.
    mutating func endpoint(_ name: String, environment variable: String? = nil) throws(CommandFailure) -> URL? {
        guard let (text, source) = try value(name, variable) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not an http(s) URL; expected e.g. "
                    + "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")
        }
        return url
    }

    /// An ISO 8601 time, with or without fractional seconds.
    mutating func time(_ name: String) throws(CommandFailure) -> Date? {
        guard let (text, source) = try value(name, nil) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not an ISO 8601 time; expected e.g. 2026-10-30T12:00:00+09:00")
        }
        return date
    }

    /// A flag, else a boolean environment variable (`1`/`0`, `true`/`false`, `yes`/`no`).
    mutating func flag(_ name: String, environment variable: String) throws(CommandFailure) -> Bool {
        if flag(name) { return true }
        guard let text = environment[variable], !text.isEmpty else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw .usage("\(command): \(variable) \"\(text)\" is not a boolean; use 1 or 0")
        }
    }

    private mutating func value(_ name: String, _ variable: String?) throws(CommandFailure)
        -> (text: String, source: String)?
    {
        if let text = try option(name) { return (text, name) }
        if let variable, let text = environment[variable], !text.isEmpty { return (text, variable) }
        return nil
    }
}
