import Foundation
import KuronekoNotify

/// `serve`'s mailbox options: where shipping mails are read, and the password kept apart from the URL.
enum MailboxOptions {
    static let options: [OptionSpec] = [
        .value(
            "--mailbox", "URL", environment: "KURONEKO_MAILBOX",
            "an IMAP mailbox to read shipping mails from, imaps://USER@HOST/FOLDER (or imap:// with STARTTLS, "
                + "required); its parcels are watched for the local owner"),
        .value(
            "--mailbox-password-file", "FILE", environment: "KURONEKO_MAILBOX_PASSWORD_FILE",
            "the file holding the mailbox's password (its first line); else KURONEKO_MAILBOX_PASSWORD, never the "
                + "command line"),
        .value(
            "--mailbox-every", "SECONDS", .seconds(1...86_400), default: "300", environment: "KURONEKO_MAILBOX_EVERY",
            "how often the mailbox is read"),
        .flag(
            "--mailbox-mark-seen", environment: "KURONEKO_MAILBOX_MARK_SEEN",
            "mark the mail read \\Seen (by default its flag is left as it was; nothing is ever deleted)"),
        .value(
            "--mailbox-move-to", "FOLDER", environment: "KURONEKO_MAILBOX_MOVE_TO",
            "move each shipping mail to FOLDER once its parcels are watched (made when missing); other mail stays"),
    ]

    /// The folder `--mailbox-move-to` names, or `nil`.
    static func moveTo(_ arguments: ArgumentList, settings: MailboxSettings?) throws(CommandFailure) -> String? {
        guard let text = arguments.text(.mailboxMoveTo), !text.isEmpty else { return nil }
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
    static func settings(_ arguments: ArgumentList, caFile: String?) throws(CommandFailure) -> MailboxSettings? {
        guard let text = arguments.text(.mailbox), !text.isEmpty else { return nil }
        var password = arguments.environment["KURONEKO_MAILBOX_PASSWORD"] ?? ""
        if let path = arguments.text(.mailboxPasswordFile), !path.isEmpty {
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
