import ArgumentParser
import Foundation
import KuronekoNotify

extension Setting {
    static let smtpURL = Setting("--smtp-url", variable: "KURONEKO_SMTP_URL")
    static let smtpFrom = Setting("--smtp-from", variable: "KURONEKO_SMTP_FROM")
    static let smtpStartTLS = Setting(
        "--smtp-starttls", variable: "KURONEKO_SMTP_STARTTLS", default: SMTPSettings.StartTLS.required.rawValue)
    static let smtpCredentials = Setting("--smtp-credentials", variable: "KURONEKO_SMTP_CREDENTIALS")
}

extension SMTPSettings.StartTLS: ExpressibleByArgument {}

/// The options of the SMTP server e-mail channels go through, shared by `serve` and `notify-test`. The user
/// and password come from `--smtp-credentials FILE` or `KURONEKO_SMTP_USER` and `KURONEKO_SMTP_PASSWORD`,
/// never from the command line, and are never printed.
struct SMTPOptions: ParsableArguments {
    @Option(
        help: Setting.smtpURL.help(
            "the SMTP server for e-mail channels: smtp://HOST:PORT (STARTTLS) or smtps://HOST:PORT (default: no "
                + "e-mail)", value: "URL"))
    var smtpUrl: String?

    @Option(help: Setting.smtpFrom.help("the address e-mail is sent from", value: "ADDRESS"))
    var smtpFrom: String?

    @Option(
        help: Setting.smtpStartTLS.help(
            "required (never in the clear), or optional (when the server offers it; a relay on this machine)",
            value: "WHEN"))
    var smtpStarttls: SMTPSettings.StartTLS?

    @Option(
        help: Setting.smtpCredentials.help(
            "a file holding user:password (or a user line and a password line) for SMTP AUTH; or set "
                + "KURONEKO_SMTP_USER and KURONEKO_SMTP_PASSWORD", value: "FILE"))
    var smtpCredentials: String?

    /// The settings, or `nil` without `--smtp-url`; each problem one line naming the option.
    func settings(_ reader: OptionReader, caFile: String?) throws(CommandFailure) -> SMTPSettings? {
        let command = reader.command
        let fromText = reader.text(smtpFrom, .smtpFrom)
        guard let text = reader.text(smtpUrl, .smtpURL) else {
            if fromText != nil {
                throw .usage("\(command): --smtp-from is given without --smtp-url; name the SMTP server too")
            }
            return nil
        }
        let url: URL
        switch SMTPSettings.checkedURL(text) {
        case .success(let checked): url = checked
        case .failure(let problem): throw .usage("\(command): --smtp-url: \(problem)")
        }
        guard let fromText else {
            throw .usage("\(command): --smtp-url needs --smtp-from ADDRESS, the address mail is sent from")
        }
        let from: MailAddress
        do {
            from = try MailAddress(parsing: fromText)
        } catch {
            throw .usage("\(command): --smtp-from \"\(fromText.prefix(80))\" \(error)")
        }
        var settings = SMTPSettings(url: url, from: from)
        if let when = try reader.choice(smtpStarttls, .smtpStartTLS) { settings.startTLS = when }
        settings.caFile = caFile
        if let file = reader.text(smtpCredentials, .smtpCredentials) {
            switch SMTPSettings.credentials(file: file) {
            case .success(let credentials): settings.credentials = credentials
            case .failure(let problem): throw .usage("\(command): --smtp-credentials: \(problem)")
            }
        } else if let user = reader.environment["KURONEKO_SMTP_USER"], !user.isEmpty {
            guard let password = reader.environment["KURONEKO_SMTP_PASSWORD"] else {
                throw .usage("\(command): KURONEKO_SMTP_USER is set without KURONEKO_SMTP_PASSWORD")
            }
            settings.credentials = (user, password)
        }
        return settings
    }
}
