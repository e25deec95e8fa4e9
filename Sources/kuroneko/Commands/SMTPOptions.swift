import Foundation
import KuronekoNotify

/// The options of the SMTP server e-mail channels go through, shared by `serve` and `notify-test`. The user
/// and password come from `--smtp-credentials FILE` or `KURONEKO_SMTP_USER` and `KURONEKO_SMTP_PASSWORD`,
/// never from the command line, and are never printed.
enum SMTPOptions {
    static let specs: [OptionSpec] = [
        .value(
            "--smtp-url", "URL", environment: "KURONEKO_SMTP_URL",
            "the SMTP server for e-mail channels: smtp://HOST:PORT (STARTTLS) or smtps://HOST:PORT (default: no "
                + "e-mail)"),
        .value(
            "--smtp-from", "ADDRESS", environment: "KURONEKO_SMTP_FROM", "the address e-mail is sent from"),
        .value(
            "--smtp-starttls", "WHEN", .choice(SMTPSettings.StartTLS.allCases.map(\.rawValue)),
            default: SMTPSettings.StartTLS.required.rawValue, environment: "KURONEKO_SMTP_STARTTLS",
            "required (never in the clear), or optional (when the server offers it; a relay on this machine)"),
        .value(
            "--smtp-credentials", "FILE", environment: "KURONEKO_SMTP_CREDENTIALS",
            "a file holding user:password (or a user line and a password line) for SMTP AUTH; or set "
                + "KURONEKO_SMTP_USER and KURONEKO_SMTP_PASSWORD"),
    ]

    /// The settings, or `nil` without `--smtp-url`; each problem one line naming the option.
    static func settings(_ arguments: ArgumentList, caFile: String?) throws(CommandFailure) -> SMTPSettings? {
        let command = arguments.command
        guard let text = arguments.text(.smtpUrl) else {
            if arguments.text(.smtpFrom) != nil {
                throw .usage("\(command): --smtp-from is given without --smtp-url; name the SMTP server too")
            }
            return nil
        }
        let url: URL
        switch SMTPSettings.checkedURL(text) {
        case .success(let checked): url = checked
        case .failure(let problem): throw .usage("\(command): --smtp-url: \(problem)")
        }
        guard let fromText = arguments.text(.smtpFrom) else {
            throw .usage("\(command): --smtp-url needs --smtp-from ADDRESS, the address mail is sent from")
        }
        let from: MailAddress
        do {
            from = try MailAddress(parsing: fromText)
        } catch {
            throw .usage("\(command): --smtp-from \"\(fromText.prefix(80))\" \(error)")
        }
        var settings = SMTPSettings(url: url, from: from)
        if let when = try arguments.choice(.smtpStarttls) {
            settings.startTLS = SMTPSettings.StartTLS(rawValue: when) ?? .required
        }
        settings.caFile = caFile
        if let file = arguments.text(.smtpCredentials) {
            switch SMTPSettings.credentials(file: file) {
            case .success(let credentials): settings.credentials = credentials
            case .failure(let problem): throw .usage("\(command): --smtp-credentials: \(problem)")
            }
        } else if let user = arguments.environment["KURONEKO_SMTP_USER"], !user.isEmpty {
            guard let password = arguments.environment["KURONEKO_SMTP_PASSWORD"] else {
                throw .usage("\(command): KURONEKO_SMTP_USER is set without KURONEKO_SMTP_PASSWORD")
            }
            settings.credentials = (user, password)
        }
        return settings
    }
}
