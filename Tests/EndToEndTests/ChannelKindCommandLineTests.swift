import Foundation
import KuronekoNotify
import KuronekoServer
import KuronekoTestSupport
import Testing

@testable import kuroneko

/// The command line's channel flags come from the kinds' fields: a kind registered in one line (the tests'
/// ``PagerChannel``) gets its flags, its help and its environment variable, and what they read is a request
/// the server's checks accept.
@Suite struct ChannelKindCommandLineTests {
    static let kinds = ChannelKindRegistry.standard.registering(PagerChannel())

    @Test func aRegisteredKindGetsItsFlagsAndTheirValuesMakeAnAcceptedRequest() throws {
        let spec = CommandCatalog.channels(kinds: Self.kinds)
        let kind = try #require(spec.option(named: "--kind"))
        #expect(kind.choices.contains("pager"))
        #expect(!kind.choices.contains("web_push"), "a browser adds web_push channels")
        let signing = try #require(spec.option(named: "--signing-key"))
        #expect(signing.environment == "KURONEKO_PAGER_SIGNING_KEY")
        #expect(signing.about.hasPrefix("pager: Signing key"))
        #expect(spec.option(named: "--api-key") != nil)
        #expect(spec.description.joined().contains("--kind pager --api-key API_KEY --signing-key SIGNING_KEY"))

        let arguments = try ArgumentList(
            ["add", "--kind", "pager", "--api-key", "key-1234"], spec: spec,
            environment: ["KURONEKO_PAGER_SIGNING_KEY": "sign-5678"])
        let body = ChannelsCommand.body(kind: "pager", arguments: arguments, kinds: Self.kinds)
        #expect(body["api_key"] as? String == "key-1234")
        #expect(body["signing_key"] as? String == "sign-5678")
        let request = try AddChannelRequest.parse(JSONSerialization.data(withJSONObject: body), kinds: Self.kinds)
        #expect(request.kind.name == "pager")
        #expect(request.kind.shown(destination: request.channel.destination) == "key …1234")
        // The standard command line does not know it, and says which kinds it has.
        let standard = try ArgumentList(["add", "--kind", "pager"], spec: CommandCatalog.channels)
        #expect(throws: CommandFailure.self) { try standard.choice(.kind) }
    }

    @Test func aListFieldsCommasMakeAList() throws {
        let first = "U" + String(repeating: "a", count: 32)
        let second = "U" + String(repeating: "b", count: 32)
        let spec = CommandCatalog.channels
        let one = try ArgumentList(["add", "--kind", "line", "--to", "broadcast"], spec: spec)
        #expect(ChannelsCommand.body(kind: "line", arguments: one, kinds: .standard)["to"] as? String == "broadcast")
        let two = try ArgumentList(["add", "--kind", "line", "--to", "\(first), \(second)"], spec: spec)
        #expect(ChannelsCommand.body(kind: "line", arguments: two, kinds: .standard)["to"] as? [String] == [first, second])
    }
}
