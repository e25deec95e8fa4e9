import ArgumentParser
import Foundation
import KuronekoNotify

extension Setting {
    static let mailbox = Setting("--mailbox", variable: "KURONEKO_MAILBOX")
    static let mailboxPasswordFile = Setting("--mailbox-password-file", variable: "KURONEKO_MAILBOX_PASSWORD_FILE")
    static let mailboxEvery = Setting(
        "--mailbox-every", variable: "KURONEKO_MAILBOX_EVERY", range: 1...86_400,
        default: seconds(serverDefaults.mailboxInterval))
    static let mailboxMarkSeen = Setting("--mailbox-mark-seen", variable: "KURONEKO_MAILBOX_MARK_SEEN")
    static let mailboxMoveTo = Setting("--mailbox-move-to", variable: "KURONEKO_MAILBOX_MOVE_TO")
}

/// `serve`'s mailbox options: where shipping mails are read, and the password kept apart from the URL.
struct MailboxOptions: ParsableArguments {
    @Option(
        help: Setting.mailbox.help(
            "an IMAP mailbox to read shipping mails from, imaps://USER@HOST/FOLDER (or imap:// with STARTTLS, "
                + "required); its parcels are watched for the local owner", value: "URL"))
    var mailbox: String?

    @Option(
        help: Setting.mailboxPasswordFile.help(
            "the file holding the mailbox's password (its first line); else KURONEKO_MAILBOX_PASSWORD, never the "
                + "command line", value: "FILE"))
    var mailboxPasswordFile: String?

    @Option(help: Setting.mailboxEvery.help("how often the mailbox is read", value: "SECONDS"), transform: Setting.mailboxEvery.parse)
    var mailboxEvery: Double?

    @Flag(
        help: Setting.mailboxMarkSeen.help(
            "mark the mail read \\Seen (by default its flag is left as it was; nothing is ever deleted)"))
    var mailboxMarkSeen = false

    @Option(
        help: Setting.mailboxMoveTo.help(
            "move each shipping mail to FOLDER once its parcels are watched (made when missing); other mail stays",
            value: "FOLDER"))
    var mailboxMoveTo: String?

    /// The folder `--mailbox-move-to` names, or `nil`.
    func moveTo(_ reader: OptionReader, settings: MailboxSettings?) throws(CommandFailure) -> String? {
        guard let text = reader.text(mailboxMoveTo, .mailboxMoveTo), !text.isEmpty else { return nil }
        guard let settings else { throw .usage("serve: --mailbox-move-to needs --mailbox") }
        let folder: String
        do {
            folder = try MailboxSettings.checkedFolder(text)
        } catch {
            throw .usage("serve: --mailbox-move-to: \(error)")
        }
        guard folder != settings.folder else {
            throw .usage("serve: --mailbox-move-to: \(folder) is the folder read; name another")
        }
        return folder
    }

    /// The settings, or `nil` without `--mailbox`; each problem one line naming the option.
    func settings(_ reader: OptionReader, caFile: String?) throws(CommandFailure) -> MailboxSettings? {
        guard let text = reader.text(mailbox, .mailbox), !text.isEmpty else { return nil }
        var password = reader.environment["KURONEKO_MAILBOX_PASSWORD"] ?? ""
        if let path = reader.text(mailboxPasswordFile, .mailboxPasswordFile), !path.isEmpty {
            password = try SecretFile.firstLine(path, option: "--mailbox-password-file")
        }
        do {
            var settings = try MailboxSettings(url: text, password: password)
            settings.caFile = caFile
            return settings
        } catch {
            throw .usage("serve: --mailbox: \(error)")
        }
    }
}
