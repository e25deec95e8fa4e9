import Foundation

/// A secret given in a file (`--mailbox-password-file`, `--mqtt-password-file`): its first line, the file at most
/// 4 KiB; never on the command line, where the process list would show it.
enum SecretFile {
    static func firstLine(_ path: String, option: String) throws(CommandFailure) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4_096 else {
            throw .usage("serve: \(option) \(path.prefix(200)) cannot be read (or is over 4 KiB)")
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }
}
