import ArgumentParser
import Foundation
import KuronekoNotify

extension Setting {
    static let lineOrigin = Setting("--line-origin", variable: "KURONEKO_LINE_ORIGIN")
    static let channelSetting = Setting("--channel-setting", variable: "KURONEKO_CHANNEL_SETTING")
}

/// `--channel-setting KIND.NAME=VALUE` (again for more) and its shorthand `--line-origin URL`: the operator's
/// settings for channel kinds, checked against the kinds' declared settings.
struct ChannelSettingOptions: ParsableArguments {
    @Option(
        help: Setting.lineOrigin.help(
            "where LINE's Messaging API is (a stand-in for tests); the same as --channel-setting line.origin=URL",
            value: "URL"))
    var lineOrigin: String?

    @Option(
        help: Setting.channelSetting.help(
            "a channel kind's server setting ("
                + ChannelKindRegistry.standard.kinds.flatMap { kind in
                    kind.serverSettings.map { "\(kind.name).\($0.name): \($0.help)" }
                }.joined(separator: "; ") + "); the option again for more", value: "KIND.NAME=VALUE"))
    var channelSetting: [String] = []

    func settings(_ reader: OptionReader, kinds: ChannelKindRegistry = .standard) throws(CommandFailure)
        -> [String: [String: String]]
    {
        var given = reader.all(channelSetting, .channelSetting)?.texts ?? []
        if let origin = try reader.url(lineOrigin, .lineOrigin) { given.append("line.origin=" + origin.absoluteString) }
        do {
            return try kinds.serverSettings(given)
        } catch {
            throw .usage("\(reader.command): \(error.message)")
        }
    }
}
