import Foundation
import Testing

@testable import kuroneko

/// The command catalogue: every option declared once, with a kind, a range and a default that its own
/// parsing accepts.
@Suite struct OptionCatalogTests {
    @Test func everyCommandIsRegisteredOnceUnderItsOwnName() {
        let names = CommandCatalog.commands.map { $0.spec.name }
        #expect(Set(names).count == names.count)
        for command in CommandCatalog.commands {
            #expect(CommandCatalog.command(named: command.spec.name) == command)
        }
        #expect(CommandCatalog.command(named: "trak") == nil)
    }

    @Test func everyOptionKeyIsDeclaredWithItsKindByTheCommandsThatNameIt() {
        let declared = CommandCatalog.all.flatMap(\.options)
        for key in OptionKeys.all {
            let named = declared.filter { $0.name == key.name }
            #expect(!named.isEmpty, "\(key.name) is read by a command but declared by none")
            for option in named { #expect(key.matches(option.kind), "\(key.name) is declared as \(option.kind)") }
        }
        #expect(OptionKeys.all.count > 90)
    }

    @Test func everyDeclaredDefaultIsAcceptedByItsOwnKindAndRange() throws {
        for spec in CommandCatalog.all {
            let options = spec.options.map(\.name)
            #expect(Set(options).count == options.count, "\(spec.name) declares an option twice")
            let arguments = try ArgumentList([], spec: spec)
            #expect(throws: Never.self, "\(spec.name)") { try arguments.readEveryOption() }
            for option in spec.options where option.defaultValue != nil {
                #expect(option.help.hasSuffix("(default \(option.defaultValue ?? ""))"))
            }
        }
    }

    @Test func defaultsAreTheLibrarysOwn() throws {
        let serve = try ArgumentList([], spec: CommandCatalog.serve)
        #expect(try serve.number(.port) == 8080)
        #expect(try serve.seconds(.timeout) == .seconds(15))
        #expect(try serve.seconds(.minInterval) == .seconds(1))
        #expect(try serve.number(.batchWindowMs) == 20)
        #expect(try serve.seconds(.queueDeadline) == .seconds(10))
        #expect(try serve.number(.maxConnections) == nil)
    }

    @Test func aValueOutsideItsRangeIsRefusedNamingTheOptionAndTheRange() throws {
        let given = try ArgumentList(["--port", "70000"], spec: CommandCatalog.serve)
        #expect(throws: CommandFailure.usage("serve: --port \"70000\" is not a number from 0 to 65,535")) {
            try given.number(.port)
        }
        let variable = try ArgumentList([], spec: CommandCatalog.serve, environment: ["KURONEKO_TIMEOUT": "nan"])
        #expect(throws: CommandFailure.usage("serve: KURONEKO_TIMEOUT \"nan\" is not a number from 0.1 to 600")) {
            try variable.seconds(.timeout)
        }
        let flagWins = try ArgumentList(
            ["--timeout", "2"], spec: CommandCatalog.serve, environment: ["KURONEKO_TIMEOUT": "nan"])
        #expect(try flagWins.seconds(.timeout) == .seconds(2))
    }

    /// The package's /etc/default/kuroneko shows each setting with its default: the same as the catalogue's.
    @Test func thePackagesSettingsFileShowsTheCataloguesDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("packaging/kuroneko.default"), encoding: .utf8)
        var compared = 0
        for line in text.split(separator: "\n") where line.hasPrefix("#KURONEKO_") {
            let parts = line.dropFirst().split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let variable = String(parts[0])
            let shown = parts.count > 1 ? String(parts[1]) : ""
            let option = try #require(
                CommandCatalog.serve.options.first { $0.environment == variable }, "\(variable) is no serve option")
            guard let declared = option.defaultValue else { continue }
            #expect(shown == declared, "\(variable)")
            compared += 1
        }
        #expect(compared >= 15)
    }
}
