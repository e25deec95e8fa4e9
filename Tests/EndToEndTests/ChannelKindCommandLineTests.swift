import ArgumentParser
import Foundation
import KuronekoNotify
import KuronekoServer
import KuronekoTestSupport
import Testing

@testable import kuroneko

/// The command line's channel options are the standard kinds' fields, one each, with their help and variables
/// from the kinds' declarations; what they read is a request the server's checks accept, for any registered kind
/// (the tests' ``PagerChannel``) as for the standard ones.
@Suite struct ChannelKindCommandLineTests {
    static let kinds = ChannelKindRegistry.standard.registering(PagerChannel())

    @Test func theChannelOptionsAreTheStandardKindsFieldsWithTheirHelpAndVariables() {
        let fields = ChannelsCommand.fields(of: .standard)
        #expect(Set(fields.map(\.field.name)) == ["url", "address", "access_token", "to"])
        let help = ChannelsCommand.helpMessage(columns: 10_000)
        for (field, owners) in fields {
            #expect(help.contains(field.flag + " <"), "\(field.flag)")
            #expect(help.contains(owners.joined(separator: ", ") + ": " + field.label.english), "\(field.flag)")
            if let variable = field.environment { #expect(help.contains("[env \(variable)]"), "\(variable)") }
        }
        #expect(help.contains("--kind <KIND>"))
        // --kind completes to the kinds a person types; a browser adds web_push channels.
        let script = KuronekoTool.completionScript(for: .bash)
        let kinds = ChannelKindRegistry.standard.typed.map { "'\($0.name)'" }.joined(separator: "$'\\n'")
        #expect(kinds.hasPrefix("'ntfy'") && script.contains(kinds), "\(kinds)")
        #expect(!script.contains("'web_push'"))
    }

    @Test func aRegisteredKindsFieldsAndVariablesMakeAnAcceptedRequest() throws {
        let body = ChannelsCommand.body(
            kind: "pager", given: ["api_key": "key-1234"], environment: ["KURONEKO_PAGER_SIGNING_KEY": "sign-5678"],
            kinds: Self.kinds)
        #expect(body["api_key"] as? String == "key-1234")
        #expect(body["signing_key"] as? String == "sign-5678")
        let request = try AddChannelRequest.parse(JSONSerialization.data(withJSONObject: body), kinds: Self.kinds)
        #expect(request.kind.name == "pager")
        #expect(request.kind.shown(destination: request.channel.destination) == "key …1234")
    }

    @Test func theCommandLineRefusesAKindItDoesNotKnowNamingThoseItHas() async throws {
        let outcome = try await KuronekoBinary.run(
            ["channels", "add", "--kind", "pager", "--db", FileManager.default.temporaryDirectory
                .appendingPathComponent("kuroneko-kind-\(UUID().uuidString).sqlite").path])
        #expect(outcome.status == 2)
        #expect(
            outcome.standardError
                == "kuroneko: channels: --kind \"pager\" is not supported; use ntfy, slack, discord, webhook, email or line\n")
    }

    @Test func aListFieldsCommasMakeAList() throws {
        let first = "U" + String(repeating: "a", count: 32)
        let second = "U" + String(repeating: "b", count: 32)
        let one = ChannelsCommand.body(kind: "line", given: ["to": "broadcast"], environment: [:], kinds: .standard)
        #expect(one["to"] as? String == "broadcast")
        let two = ChannelsCommand.body(
            kind: "line", given: ["to": "\(first), \(second)"], environment: [:], kinds: .standard)
        #expect(two["to"] as? [String] == [first, second])
    }
}
