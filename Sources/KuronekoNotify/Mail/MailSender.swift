import CCurl
import Foundation

/// Sends one e-mail.
public protocol MailSender: Sendable {
    func send(_ message: MailMessage) async -> DeliveryOutcome
}

/// Where and how mail goes out: the operator's SMTP server.
public struct SMTPSettings: Sendable, Hashable {
    /// How `smtp://` uses STARTTLS (`smtps://` is TLS from the first byte either way).
    public enum StartTLS: String, Sendable, Hashable, CaseIterable {
        /// The server must offer STARTTLS; mail is never sent in the clear.
        case required
        /// STARTTLS when the server offers it, else in the clear (a relay on this machine).
        case optional
    }

    /// `smtp://host:port` or `smtps://host:port`.
    public var url: URL
    public var from: MailAddress
    public var startTLS: StartTLS = .required
    /// The user and password, from a file or the environment (never the command line).
    public var credentials: (user: String, password: String)?
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    public var timeout: TimeInterval = 30

    public init(url: URL, from: MailAddress) {
        self.url = url
        self.from = from
    }

    public static func == (left: SMTPSettings, right: SMTPSettings) -> Bool {
        left.url == right.url && left.from == right.from && left.startTLS == right.startTLS
            && left.credentials?.user == right.credentials?.user
            && left.credentials?.password == right.credentials?.password && left.caFile == right.caFile
            && left.timeout == right.timeout
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(from)
    }

    /// Checks an `--smtp-url`: smtp or smtps, a host, no user or password in it, no path beyond `/`.
    public static func checkedURL(_ text: String) -> Result<URL, SMTPSettingsError> {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["smtp", "smtps"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { return .failure(.init(message: "\"\(text.prefix(200))\" is not smtp://HOST:PORT or smtps://HOST:PORT")) }
        guard url.user == nil, url.password == nil else {
            return .failure(
                .init(
                    message: "the SMTP URL holds credentials; give them in --smtp-credentials FILE or the environment"))
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil else {
            return .failure(.init(message: "\"\(text.prefix(200))\" has a path or query; expected smtp://HOST:PORT"))
        }
        return .success(url)
    }

    /// Reads `user:password` (one line) or a user line and a password line from a file.
    public static func credentials(file path: String) -> Result<(user: String, password: String), SMTPSettingsError> {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4_096 else {
            return .failure(.init(message: "the SMTP credentials file \(path) cannot be read (or is over 4 KiB)"))
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        if lines.count == 1, let colon = lines[0].firstIndex(of: ":") {
            return .success((String(lines[0][..<colon]), String(lines[0][lines[0].index(after: colon)...])))
        }
        guard lines.count == 2, !lines[0].isEmpty else {
            return .failure(
                .init(
                    message:
                        "the SMTP credentials file \(path) holds neither user:password nor a user and a password line"))
        }
        return .success((lines[0], lines[1]))
    }
}

/// Why SMTP settings were refused, in one line.
public struct SMTPSettingsError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Mail through libcurl's SMTP: STARTTLS required (or as configured), the certificate and host name checked,
/// AUTH when credentials are given, one message a connection, within the settings' timeout.
public struct CurlMailSender: MailSender {
    public let settings: SMTPSettings

    public init(settings: SMTPSettings) {
        self.settings = settings
        _ = curlReady
    }

    public func send(_ message: MailMessage) async -> DeliveryOutcome {
        let settings = self.settings
        return await withCheckedContinuation { continuation in
            // curl_easy_perform blocks: never on the cooperative pool.
            Thread.detachNewThread { continuation.resume(returning: MailTransfer(message, settings).perform()) }
        }
    }
}

private let curlReady: Bool = {
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    return true
}()

/// One message's upload, reached from libcurl's read callback through an unretained pointer.
private final class MailTransfer {
    let message: MailMessage
    let settings: SMTPSettings
    let body: Data
    var sent = 0

    init(_ message: MailMessage, _ settings: SMTPSettings) {
        self.message = message
        self.settings = settings
        body = message.rendered
    }

    func perform() -> DeliveryOutcome {
        guard let handle = curl_easy_init() else {
            return DeliveryOutcome(status: nil, error: "libcurl could not make a handle for the SMTP server")
        }
        defer { curl_easy_cleanup(handle) }
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorText.deallocate() }
        let recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(message.to.text)>")
        defer { curl_slist_free_all(recipients) }
        let milliseconds = Int(min(max(1, settings.timeout), 3_600) * 1_000)
        let context = Unmanaged.passUnretained(self).toOpaque()
        kuroneko_curl_set_pointer(handle, CURLOPT_URL, settings.url.absoluteString)
        kuroneko_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        kuroneko_curl_set_pointer(handle, CURLOPT_MAIL_FROM, "<\(settings.from.text)>")
        kuroneko_curl_set_pointer(handle, CURLOPT_MAIL_RCPT, UnsafeRawPointer(recipients))
        kuroneko_curl_set_long(
            handle, CURLOPT_USE_SSL,
            Int(settings.startTLS == .required ? CURLUSESSL_ALL.rawValue : CURLUSESSL_TRY.rawValue))
        if let caFile = settings.caFile { kuroneko_curl_set_pointer(handle, CURLOPT_CAINFO, caFile) }
        if let credentials = settings.credentials {
            kuroneko_curl_set_pointer(handle, CURLOPT_USERNAME, credentials.user)
            kuroneko_curl_set_pointer(handle, CURLOPT_PASSWORD, credentials.password)
        }
        kuroneko_curl_set_long(handle, CURLOPT_UPLOAD, 1)
        kuroneko_curl_set_size(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(body.count))
        kuroneko_curl_set_read(handle, mailRead, context)
        kuroneko_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        kuroneko_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        kuroneko_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        kuroneko_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
        let result = withExtendedLifetime(self) { curl_easy_perform(handle) }
        let code = kuroneko_curl_response_code(handle)
        guard result == CURLE_OK else {
            let detail = String(cString: errorText)
            let reason = detail.isEmpty ? (curl_easy_strerror(result).map { String(cString: $0) } ?? "error") : detail
            let server = settings.url.host ?? "the SMTP server"
            return DeliveryOutcome(
                status: code >= 400 ? code : nil,
                error: "the mail to \(message.to) was not taken by \(server): \(reason)")
        }
        return DeliveryOutcome(status: code == 0 ? 250 : code, error: nil)
    }

    /// Copies the next part of the message into libcurl's buffer; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, body.count - sent)
        guard count > 0 else { return 0 }
        body.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + sent, byteCount: count)
        }
        sent += count
        return count
    }
}

private func mailRead(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else { return 0 }
    return Unmanaged<MailTransfer>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: size * count)
}
