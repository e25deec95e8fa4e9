import Foundation
import Kuroneko

// Typed option values, shared by every command. Each reads `--name VALUE`, else the option's environment
// variable, else its declared default, and checks it against the kind its ``OptionSpec`` declares (a
// number against its range), refusing a bad value with one line naming the option or variable and what
// would be right. Asking for an option as a kind it was not declared as is a mistake in this program,
// caught by the catalogue's tests.
extension ArgumentList {
    /// A text value.
    func text(named name: String) -> String? {
        resolved(name, expecting: .text)?.text
    }

    /// A number within the option's range.
    func number(named name: String) throws(CommandFailure) -> Double? {
        guard case .number(let range) = declaredKind(name) else { preconditionFailure("\(name) is not a number") }
        return try checkedNumber(name, in: range)
    }

    /// A duration in seconds within the option's range.
    func seconds(named name: String) throws(CommandFailure) -> Duration? {
        guard case .seconds(let range) = declaredKind(name) else { preconditionFailure("\(name) is not seconds") }
        return try checkedNumber(name, in: range).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// An http(s) URL, such as the tracking form to post to.
    func url(named name: String) throws(CommandFailure) -> URL? {
        guard let (text, source) = resolved(name, expecting: .url) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not an http(s) URL; expected e.g. "
                    + "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")
        }
        return url
    }

    /// Carriers' sites: `yamato=URL`, `sagawa=ORIGIN`, `japanpost=ORIGIN`, or a bare URL for Yamato's form;
    /// each carrier at most once.
    func endpoints(named name: String) throws(CommandFailure) -> [Carrier: URL] {
        guard declaredKind(name) == .endpoints else { preconditionFailure("\(name) is not endpoints") }
        guard let (texts, source) = allValues(named: name) else { return [:] }
        var endpoints: [Carrier: URL] = [:]
        for item in texts.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            var carrier = Carrier.yamato
            var text = item
            if let equals = item.firstIndex(of: "="), !item[..<equals].contains(":") {
                do {
                    carrier = try Carrier(named: String(item[..<equals]))
                } catch {
                    throw .usage("\(command): \(source) \"\(item)\": \(error)")
                }
                text = String(item[item.index(after: equals)...])
            }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                ["http", "https"].contains(scheme),
                url.host != nil
            else {
                throw .usage(
                    "\(command): \(source) \"\(item)\" is not an http(s) URL; expected e.g. "
                        + "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko or sagawa=http://127.0.0.1:8081")
            }
            guard endpoints.updateValue(url, forKey: carrier) == nil else {
                throw .usage("\(command): \(source) names \(carrier) twice; give each carrier one endpoint")
            }
        }
        return endpoints
    }

    /// A carrier's name, the option declared as a choice of them.
    func carrier(named name: String) throws(CommandFailure) -> Carrier? {
        try choice(named: name).flatMap { try? Carrier(named: $0) }
    }

    /// An ISO 8601 time, with or without fractional seconds.
    func time(named name: String) throws(CommandFailure) -> Date? {
        guard let (text, source) = resolved(name, expecting: .time) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not an ISO 8601 time; expected e.g. 2026-10-30T12:00:00+09:00")
        }
        return date
    }

    /// A readable file holding at least one PEM certificate.
    func certificates(named name: String) throws(CommandFailure) -> String? {
        guard let (path, source) = resolved(name, expecting: .certificates) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage(
                "\(command): \(source) \"\(path)\" cannot be read; expected a PEM file of certificate authorities")
        }
        guard data.count <= 16 << 20, String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----")
        else {
            throw .usage(
                "\(command): \(source) \"\(path)\" holds no PEM certificate (-----BEGIN CERTIFICATE-----); expected "
                    + "a file of certificate authorities")
        }
        return path
    }

    /// One of the option's choices.
    func choice(named name: String) throws(CommandFailure) -> String? {
        let choices = spec.option(named: name)?.choices ?? []
        guard let (text, source) = resolved(name, expecting: .choice(choices)) else { return nil }
        guard choices.contains(text) else {
            let listed = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
            throw .usage("\(command): \(source) \"\(text)\" is not supported; use \(listed)")
        }
        return text
    }

    /// A flag, else its boolean environment variable (`1`/`0`, `true`/`false`, `yes`/`no`).
    func flagOrVariable(named name: String) throws(CommandFailure) -> Bool {
        if flag(named: name) { return true }
        guard let variable = spec.option(named: name)?.environment, let text = environment[variable], !text.isEmpty
        else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw .usage("\(command): \(variable) \"\(text)\" is not a boolean; use 1 or 0")
        }
    }

    /// No operands allowed.
    func expectNoOperands() throws(CommandFailure) {
        guard let extra = operands.first else { return }
        throw .usage("\(command): unexpected argument '\(extra)'; see 'kuroneko \(command) --help'")
    }

    /// Every option's value as its kind reads it, defaults included: what the catalogue's tests run on
    /// each command with no arguments, so a default outside its own range cannot ship.
    func readEveryOption() throws(CommandFailure) {
        for option in spec.options {
            switch option.kind {
            case .flag: _ = try flagOrVariable(named: option.name)
            case .text: _ = text(named: option.name)
            case .choice: _ = try choice(named: option.name)
            case .number: _ = try number(named: option.name)
            case .seconds: _ = try seconds(named: option.name)
            case .url: _ = try url(named: option.name)
            case .endpoints: _ = try endpoints(named: option.name)
            case .time: _ = try time(named: option.name)
            case .certificates: _ = try certificates(named: option.name)
            }
        }
    }

    private func declaredKind(_ name: String) -> OptionSpec.Kind {
        guard let option = spec.option(named: name) else {
            preconditionFailure("\(name) is not an option of \(command)")
        }
        return option.kind
    }

    /// The value given, else the declared default (its source then `default`).
    private func resolved(_ name: String, expecting kind: OptionSpec.Kind) -> (text: String, source: String)? {
        guard declaredKind(name) == kind else { preconditionFailure("\(name) is not declared as \(kind)") }
        if let given = value(name) { return given }
        return spec.option(named: name)?.defaultValue.map { ($0, "the default of \(name)") }
    }

    private func checkedNumber(_ name: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        let kind = declaredKind(name)
        guard let (text, source) = resolved(name, expecting: kind) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw .usage(
                "\(command): \(source) \"\(text)\" is not a number from \(range.lowerBound.formatted()) to "
                    + "\(range.upperBound.formatted())")
        }
        return number
    }
}
