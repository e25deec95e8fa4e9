import Foundation
import KuronekoNotify

/// `--channel-setting KIND.NAME=VALUE` (again for more) and its shorthand `--line-origin URL`: the operator's
/// settings for channel kinds, checked against the kinds' declared settings.
enum ChannelSettingOptions {
    static func settings(_ arguments: ArgumentList, kinds: ChannelKindRegistry = .standard)
        throws(CommandFailure) -> [String: [String: String]]
    {
        var given = arguments.allValues(.channelSetting)?.texts ?? []
        if let origin = try arguments.url(.lineOrigin) { given.append("line.origin=" + origin.absoluteString) }
        do {
            return try kinds.serverSettings(given)
        } catch {
            throw .usage("\(arguments.spec.name): \(error.message)")
        }
    }
}
