import ArgumentParser
import Foundation
import Kuroneko

/// Reads a command's options as swift-argument-parser parsed them, else their ``Setting``'s `KURONEKO_…`
/// variable, else its default, and checks each against what the setting declares (a number against its range),
/// refusing a bad value with one line naming the option or variable and what would be right.
struct OptionReader: Sendable {
    /// The command's name, for messages.
    let command: String
    let environment: [String: String]

    /// The value given, else the variable's (non-empty), else the default; with where it came from.
    func resolved(_ given: String?, _ setting: Setting) -> (text: String, source: String)? {
        if let given { return (given, setting.name) }
        if let variable = setting.variable, let text = environment[variable], !text.isEmpty { return (text, variable) }
        return setting.defaultValue.map { ($0, "the default of \(setting.name)") }
    }

    /// A text value.
    func text(_ given: String?, _ setting: Setting) -> String? {
        resolved(given, setting)?.text
    }

    /// Every value given (the option repeated), else the variable's one; with where they came from.
    func all(_ given: [String], _ setting: Setting) -> (texts: [String], source: String)? {
        if !given.isEmpty { return (given, setting.name) }
        if let variable = setting.variable, let text = environment[variable], !text.isEmpty { return ([text], variable) }
        return nil
    }

    /// A number within the setting's range.
    func number(_ given: Double?, _ setting: Setting) throws(CommandFailure) -> Double? {
        guard let (text, source) = resolved(given.map(Setting.number), setting) else { return nil }
        guard let number = try? setting.parse(text) else {
            throw .usage("\(command): \(source) \"\(text)\" is not \(setting.expectation)")
        }
        return number
    }

    /// A whole number within the setting's range.
    func integer(_ given: Double?, _ setting: Setting) throws(CommandFailure) -> Int? {
        try number(given, setting).map { Int($0) }
    }

    /// A duration in seconds within the setting's range.
    func seconds(_ given: Double?, _ setting: Setting) throws(CommandFailure) -> Duration? {
        try number(given, setting).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// A flag, else its boolean variable (`1`/`0`, `true`/`false`, `yes`/`no`).
    func flag(_ given: Bool, _ setting: Setting) throws(CommandFailure) -> Bool {
        if given { return true }
        guard let variable = setting.variable, let text = environment[variable], !text.isEmpty else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw .usage("\(command): \(variable) \"\(text)\" is not a boolean; use 1 or 0")
        }
    }

    /// One of a closed set of words: the typed value given, else the variable's, else the default.
    func choice<Value: ExpressibleByArgument & CaseIterable>(_ given: Value?, _ setting: Setting)
        throws(CommandFailure) -> Value?
    {
        if let given { return given }
        guard let (text, source) = resolved(nil, setting) else { return nil }
        guard let value = Value(argument: text) else {
            let choices = Value.allValueStrings
            let listed = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
            throw .usage("\(command): \(source) \"\(text)\" is not supported; use \(listed)")
        }
        return value
    }

    /// An http(s) URL.
    func url(_ given: String?, _ setting: Setting) throws(CommandFailure) -> URL? {
        guard let (text, source) = resolved(given, setting) else { return nil }
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
    /// comma-separated or the option again; each carrier at most once.
    func endpoints(_ given: [String], _ setting: Setting) throws(CommandFailure) -> [Carrier: URL] {
        guard let (texts, source) = all(given, setting) else { return [:] }
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

    /// An ISO 8601 time, with or without fractional seconds.
    func time(_ given: String?, _ setting: Setting) throws(CommandFailure) -> Date? {
        guard let (text, source) = resolved(given, setting) else { return nil }
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
    func certificates(_ given: String?, _ setting: Setting) throws(CommandFailure) -> String? {
        guard let (path, source) = resolved(given, setting) else { return nil }
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

    /// No operands allowed.
    func expectNoOperands(_ operands: [String]) throws(CommandFailure) {
        guard let extra = operands.first else { return }
        throw .usage("\(command): unexpected argument '\(extra)'; see 'kuroneko \(command) --help'")
    }
}
