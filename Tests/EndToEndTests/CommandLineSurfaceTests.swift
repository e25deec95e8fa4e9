import ArgumentParser
import Foundation
import KuronekoServer
import KuronekoTestSupport
import Testing

@testable import kuroneko

/// The command line on swift-argument-parser keeps every command, option, short name, value, default and
/// environment variable users had (the list in Tests/Fixtures/cli/surface.txt was taken from the help of the
/// hand-written parser it replaced), in each command's help and in the three completion scripts; and each
/// setting's default is accepted by its own range, read from the library's own defaults.
@Suite struct CommandLineSurfaceTests {
    /// One option as users had it: `track --timeout default=15 env=KURONEKO_TIMEOUT`.
    struct Entry {
        let command: String
        let option: String
        var facts: [String: String] = [:]

        init(_ line: Substring) {
            let words = line.split(separator: " ").map(String.init)
            command = words[0]
            option = words[1]
            for word in words.dropFirst(2) {
                let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
                facts[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
        }
    }

    static let entries: [Entry] = {
        let url = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/cli/surface.txt")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(Entry.init)
    }()

    static func command(named name: String) -> (any ParsableCommand.Type)? {
        KuronekoTool.configuration.subcommands.first { $0.configuration.commandName == name }
    }

    /// The help as one line of words, so wrapping does not matter.
    static func help(_ command: any ParsableCommand.Type) -> String {
        command.helpMessage(columns: 10_000).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func everyCommandUsersHadIsThereUnderItsName() {
        let names = KuronekoTool.commandNames
        #expect(Set(names).count == names.count)
        let before = [
            "track", "parse", "add", "list", "show", "remove", "refresh", "watch", "import", "intake", "keys",
            "channels", "notify-test", "pages", "notices", "users", "lists", "db", "serve", "simulate", "completion",
            "help",
        ]
        #expect(names == before)
        #expect(Set(Self.entries.map(\.command)).isSubset(of: Set(names)))
    }

    @Test func everyOptionUsersHadIsInItsCommandsHelpWithItsValuesDefaultAndVariable() throws {
        #expect(Self.entries.count >= 200)
        for entry in Self.entries {
            let command = try #require(Self.command(named: entry.command), "\(entry.command)")
            let help = Self.help(command)
            #expect(help.contains(entry.option + " ") || help.contains(entry.option + ","), "\(entry.command) \(entry.option)")
            if let short = entry.facts["short"] {
                #expect(help.contains("\(short), \(entry.option)"), "\(entry.command) \(entry.option)")
            }
            for choice in entry.facts["choices"]?.split(separator: "|") ?? [] {
                #expect(help.contains(String(choice)), "\(entry.command) \(entry.option) \(choice)")
            }
            if let value = entry.facts["default"] {
                #expect(
                    help.contains("(default \(value))") || help.contains("default: \(value))")
                        || help.contains("(default \(value);") || help.contains("default: \(value);")
                        || help.contains("(default \(value),"),
                    "\(entry.command) \(entry.option) default \(value)")
            }
            if let variable = entry.facts["env"] {
                #expect(help.contains("[env \(variable)]"), "\(entry.command) \(entry.option) \(variable)")
            }
        }
    }

    @Test func everyOptionAndValueUsersHadIsInTheThreeCompletionScripts() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = KuronekoTool.completionScript(for: shell)
            for name in KuronekoTool.commandNames { #expect(script.contains(name), "\(shell) \(name)") }
            for entry in Self.entries {
                // fish and zsh name options without their dashes.
                let bare = String(entry.option.dropFirst(2))
                #expect(script.contains(bare), "\(shell): \(entry.command) \(entry.option)")
                for choice in entry.facts["choices"]?.split(separator: "|") ?? [] {
                    // A quoted word ('ja'), or a word of fish's quoted list ('ja en').
                    let word = ["'\(choice)'", "'\(choice) ", " \(choice) ", " \(choice)'"].contains { script.contains($0) }
                    #expect(word, "\(shell): \(entry.command) \(entry.option) \(choice)")
                }
            }
        }
    }

    @Test func theToolsHelpNamesTheExitStatuses() {
        let help = Self.help(KuronekoTool.self)
        #expect(help.contains("Exit status: 0 success, 1 upstream or page failure, 2 usage error or invalid number."))
    }

    private static func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeSettings {
        let command = try #require(try KuronekoTool.parseAsRoot(["serve"] + arguments) as? ServeCommand)
        return try command.settings(Terminal(environment: environment))
    }

    @Test func serveReadsTheLibrarysOwnDefaultsAndEveryDefaultIsInItsRange() throws {
        let configuration = try Self.serve([]).configuration
        let defaults = Server.Configuration()
        #expect(configuration.http.port == 8080)
        #expect(configuration.client.requestTimeout == .seconds(15))
        #expect(configuration.client.minimumRequestInterval == .seconds(1))
        #expect(configuration.client.batchWindow == .milliseconds(20))
        #expect(configuration.client.lookupDeadline == .seconds(10))
        #expect(configuration.http.maxConnections == defaults.http.maxConnections)
        #expect(configuration.shipments.cache.capacity == defaults.shipments.cache.capacity)
        #expect(configuration.canaryInterval == defaults.canaryInterval)
        #expect(configuration.vapidSubject == defaults.vapidSubject)
        #expect(configuration.logFormat == .text)
    }

    @Test func aValueOutsideItsRangeIsRefusedNamingTheOptionOrVariableAndTheRange() throws {
        // Given on the command line, the parser refuses it (its message names the range: CommandLineTests).
        #expect(throws: (any Error).self) { try Self.serve(["--port", "70000"]) }
        #expect(Setting.port.expectation == "a number from 0 to 65,535")
        #expect(throws: (any Error).self) { try Setting.port.parse("70000") }
        #expect(try Setting.port.parse("8080") == 8080)
        #expect(throws: CommandFailure.usage("serve: KURONEKO_PORT \"70000\" is not a number from 0 to 65,535")) {
            try Self.serve([], environment: ["KURONEKO_PORT": "70000"])
        }
        #expect(throws: CommandFailure.usage("serve: KURONEKO_TIMEOUT \"nan\" is not a number from 0.1 to 600")) {
            try Self.serve([], environment: ["KURONEKO_TIMEOUT": "nan"])
        }
        let flagWins = try Self.serve(["--timeout", "2"], environment: ["KURONEKO_TIMEOUT": "nan"])
        #expect(flagWins.configuration.client.requestTimeout == .seconds(2))
        let fromVariable = try Self.serve([], environment: ["KURONEKO_PORT": "9000", "KURONEKO_DEMO": "yes"])
        #expect(fromVariable.configuration.http.port == 9000 && fromVariable.demo)
        #expect(throws: CommandFailure.usage("serve: KURONEKO_DEMO \"maybe\" is not a boolean; use 1 or 0")) {
            try Self.serve([], environment: ["KURONEKO_DEMO": "maybe"])
        }
        #expect(throws: CommandFailure.usage("serve: KURONEKO_LOG_FORMAT \"xml\" is not supported; use text or json")) {
            try Self.serve([], environment: ["KURONEKO_LOG_FORMAT": "xml"])
        }
        #expect(try Self.serve([], environment: ["KURONEKO_LOG_FORMAT": "json"]).configuration.logFormat == .json)
    }

    @Test func aRepeatedOptionKeepsEveryValueAndItsVariableGivesOne() throws {
        let reader = OptionReader(command: "serve", environment: ["KURONEKO_CANARY": "yamato=4471-0412-3454"])
        #expect(reader.all(["a", "b"], .canary)?.texts == ["a", "b"])
        #expect(reader.all([], .canary)?.texts == ["yamato=4471-0412-3454"])
        #expect(reader.all([], .canary)?.source == "KURONEKO_CANARY")
        #expect(OptionReader(command: "serve", environment: ["KURONEKO_CANARY": ""]).all([], .canary) == nil)
    }

    /// The package's /etc/default/kuroneko shows each setting with its default: the same as `serve --help` says.
    @Test func thePackagesSettingsFileShowsServesDefaults() throws {
        let text = try String(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent("packaging/kuroneko.default"), encoding: .utf8)
        let help = Self.help(ServeCommand.self)
        var compared = 0
        for line in text.split(separator: "\n") where line.hasPrefix("#KURONEKO_") {
            let parts = line.dropFirst().split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let variable = String(parts[0])
            let shown = parts.count > 1 ? String(parts[1]) : ""
            #expect(help.contains("[env \(variable)]"), "\(variable) is no serve option")
            guard let range = help.range(of: " [env \(variable)]") else { continue }
            let before = help[..<range.lowerBound]
            // A default said in words ("none: the header is ignored") is shown as an empty value.
            guard before.hasSuffix(")"), let open = before.range(of: "(default ", options: .backwards),
                !before[open.upperBound...].contains("("), !before[open.upperBound...].hasPrefix("none")
            else { continue }
            #expect(String(before[open.upperBound...].dropLast()) == shown, "\(variable)")
            compared += 1
        }
        #expect(compared >= 15)
        // And every variable serve reads is there, commented, for the operator to set.
        let listed = Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("#KURONEKO_"), let equals = line.firstIndex(of: "=") else { return nil }
            return String(line.dropFirst()[..<equals])
        })
        var variables = 0
        var rest = help[...]
        while let range = rest.range(of: "[env ") {
            let name = rest[range.upperBound...].prefix { $0 != "]" }
            #expect(listed.contains(String(name)), "packaging/kuroneko.default does not list \(name)")
            variables += 1
            rest = rest[range.upperBound...]
        }
        #expect(variables >= 50)
    }
}
