import Foundation

// Typed option values, shared by every command: each reads `--name VALUE`, else the option's environment
// variable (from its ``OptionSpec``), and refuses a bad value with one line naming the option or variable and
// what would be right.
extension ArgumentList {
    /// A text value.
    func text(_ name: String) -> String? {
        value(name)?.text
    }

    /// A number within `range`.
    func number(_ name: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        guard let (text, source) = value(name) else { return nil }
        guard let number = Double(text), range.contains(number) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not a number from \(range.lowerBound.formatted()) to "
                    + "\(range.upperBound.formatted())")
        }
        return number
    }

    /// A duration in seconds within `range`.
    func seconds(_ name: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Duration? {
        try number(name, in: range).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// An http(s) URL, such as the tracking form to post to.
    func endpoint(_ name: String) throws(CommandFailure) -> URL? {
        guard let (text, source) = value(name) else { return nil }
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
    func time(_ name: String) throws(CommandFailure) -> Date? {
        guard let (text, source) = value(name) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not an ISO 8601 time; expected e.g. 2026-10-30T12:00:00+09:00")
        }
        return date
    }

    /// A flag, else its boolean environment variable (`1`/`0`, `true`/`false`, `yes`/`no`).
    func flagOrVariable(_ name: String) throws(CommandFailure) -> Bool {
        if flag(name) { return true }
        guard let variable = spec.option(named: name)?.environment, let text = environment[variable], !text.isEmpty
        else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw .usage("\(command): \(variable) \"\(text)\" is not a boolean; use 1 or 0")
        }
    }

    /// One of the option's choices.
    func choice(_ name: String) throws(CommandFailure) -> String? {
        guard let (text, source) = value(name) else { return nil }
        let choices = spec.option(named: name)?.choices ?? []
        guard choices.contains(text) else {
            let listed = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
            throw .usage("\(command): \(source) \"\(text)\" is not supported; use \(listed)")
        }
        return text
    }

    /// No operands allowed.
    func expectNoOperands() throws(CommandFailure) {
        guard let extra = operands.first else { return }
        throw .usage("\(command): unexpected argument '\(extra)'; see 'kuroneko \(command) --help'")
    }
}
