import CCurl
import Foundation
import Kuroneko

/// Where the server reads shipping mails: an IMAP mailbox over TLS (`imaps://user@host/INBOX`, or `imap://` with
/// STARTTLS, required), its password kept apart from the URL.
public struct MailboxSettings: Sendable, Hashable, CustomStringConvertible {
    public let url: URL
    public let user: String
    public let password: String
    /// The folder, from the URL's path (INBOX when none).
    public let folder: String
    public var caFile: String?
    /// Seconds one request may take, connection included.
    public var timeout: Double = 60

    /// - Throws: one line naming what is wrong with `text`.
    public init(url text: String, password: String) throws(MailboxSettingsError) {
        // A folder written as people name it (通販, Online Orders) is percent-encoded here; escapes already there stay.
        let written = URL(string: text)
            ?? text.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlQueryAllowed.union(["%"]))
            .flatMap(URL.init(string:))
        guard let url = written, let scheme = url.scheme?.lowercased(), ["imaps", "imap"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw MailboxSettingsError("\"\(text.prefix(200))\" is not an imaps:// or imap:// URL; expected e.g. imaps://hanako@mail.example.jp/INBOX")
        }
        guard let user = url.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw MailboxSettingsError("\(Self.redacted(url)) names no user; expected imaps://USER@HOST/FOLDER")
        }
        guard url.password == nil else {
            throw MailboxSettingsError(
                "\(Self.redacted(url)) carries a password; give it in a file (--mailbox-password-file) or KURONEKO_MAILBOX_PASSWORD instead")
        }
        guard !password.isEmpty else {
            throw MailboxSettingsError("no password for \(Self.redacted(url)); give --mailbox-password-file FILE or KURONEKO_MAILBOX_PASSWORD")
        }
        let path = url.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard !path.contains(";"), !path.contains("?"), path.count <= 200 else {
            throw MailboxSettingsError("\(Self.redacted(url)): the folder \"\(path.prefix(60))\" is not a plain folder name")
        }
        self.url = url
        self.user = user
        self.password = password
        folder = path.isEmpty ? "INBOX" : path
    }

    /// The URL as logs and errors show it (the user name kept, no password).
    /// `imaps://hanako@mail.example.jp/通販`: the folder as written, the user as in a URL. It also names the
    /// mailbox's progress in the store.
    public var description: String {
        let port = url.port.map { ":\($0)" } ?? ""
        let user = self.user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? self.user
        return "\(url.scheme?.lowercased() ?? "imaps")://\(user)@\(url.host ?? "")\(port)/\(folder)"
    }

    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.password = nil
        return components?.string ?? "the mailbox"
    }

    /// The folder's URL on the server, with `suffix` (`;UID=5`).
    func folderURL(_ suffix: String = "") -> String {
        let wire = IMAPFolderName.wire(folder)
        let escaped = wire.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? wire
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(url.scheme?.lowercased() ?? "imaps")://\(url.host ?? "")\(port)/\(escaped)\(suffix)"
    }
}

public struct MailboxSettingsError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Why a mailbox could not be read: one line, without the password.
public struct MailboxError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    /// The message was larger than ``IMAPSession/maximumMessageBytes``: not read (the next ones still are).
    public var tooLarge = false
}

/// One conversation with an IMAP server: one libcurl handle (and so one connection, reused from request to
/// request), owned by the thread that made it and closed at the end. Blocking: call it off the cooperative pool.
public final class IMAPSession {
    /// The largest message fetched.
    public static let maximumMessageBytes = 25 << 20

    private let settings: MailboxSettings
    private let handle: UnsafeMutableRawPointer
    private var received = Data()
    private var overflow = false

    public init(_ settings: MailboxSettings) throws(MailboxError) {
        _ = imapReady
        guard let handle = curl_easy_init() else {
            throw MailboxError(description: "libcurl could not make a handle for \(settings)")
        }
        self.settings = settings
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// The folder's UIDVALIDITY and UIDNEXT (EXAMINE: read-only, marks nothing).
    public func status() throws(MailboxError) -> (uidValidity: UInt64, uidNext: UInt64) {
        let text = String(decoding: try perform(settings.serverURL, custom: "EXAMINE \(settings.quotedFolder)"), as: UTF8.self)
        guard let validity = Self.number(after: "UIDVALIDITY ", in: text) else {
            throw MailboxError(description: "\(settings) answered EXAMINE without a UIDVALIDITY")
        }
        return (validity, Self.number(after: "UIDNEXT ", in: text) ?? 0)
    }

    /// The UIDs above `after`, in order.
    public func uids(after: UInt64) throws(MailboxError) -> [UInt64] {
        let text = String(decoding: try perform(settings.folderURL(), custom: "UID SEARCH UID \(after + 1):*"), as: UTF8.self)
        var uids: [UInt64] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("* SEARCH") {
            uids += line.dropFirst("* SEARCH".count).split(separator: " ").compactMap { UInt64($0) }
        }
        // `n:*` names the last message even when its UID is below n.
        return uids.filter { $0 > after }.sorted()
    }

    /// Which of `uids` are not marked \Seen.
    public func unseen(_ uids: [UInt64]) throws(MailboxError) -> Set<UInt64> {
        guard let first = uids.min(), let last = uids.max() else { return [] }
        let text = String(decoding: try perform(settings.folderURL(), custom: "UID FETCH \(first):\(last) FLAGS"), as: UTF8.self)
        var unseen = Set<UInt64>()
        for line in text.split(whereSeparator: \.isNewline) where line.contains("FETCH") {
            guard let uid = Self.number(after: "UID ", in: String(line)), uids.contains(uid) else { continue }
            if !line.contains("\\Seen") { unseen.insert(uid) }
        }
        return unseen
    }

    /// The whole message of `uid`. Reading it marks it \Seen (libcurl asks for BODY[]): ``setSeen(_:uid:)`` puts
    /// the flag back.
    public func fetch(uid: UInt64) throws(MailboxError) -> Data {
        try perform(settings.folderURL(";UID=\(uid)"), custom: nil)
    }

    /// Moves `uids` to `folder` (RFC 6851's UID MOVE), making the folder first when the server says it is not
    /// there.
    public func move(_ uids: [UInt64], to folder: String) throws(MailboxError) {
        guard !uids.isEmpty else { return }
        let set = uids.map(String.init).joined(separator: ",")
        let command = "UID MOVE \(set) \(MailboxSettings.quoted(folder))"
        do {
            _ = try perform(settings.folderURL(), custom: command)
        } catch {
            _ = try? perform(settings.serverURL, custom: "CREATE \(MailboxSettings.quoted(folder))")
            do {
                _ = try perform(settings.folderURL(), custom: command)
            } catch {
                throw MailboxError(description: "\(settings): the mail read could not be moved to \(folder): \(error)")
            }
        }
    }

    /// Sets or clears \Seen on `uid`.
    public func setSeen(_ seen: Bool, uid: UInt64) throws(MailboxError) {
        _ = try perform(settings.folderURL(), custom: "UID STORE \(uid) \(seen ? "+" : "-")FLAGS.SILENT (\\Seen)")
    }

    private func perform(_ url: String, custom: String?) throws(MailboxError) -> Data {
        received = Data()
        overflow = false
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorText.deallocate() }
        let milliseconds = Int(min(max(1, settings.timeout), 3_600) * 1_000)
        kuroneko_curl_set_pointer(handle, CURLOPT_URL, url)
        kuroneko_curl_set_pointer(handle, CURLOPT_PROTOCOLS_STR, "imap,imaps")
        kuroneko_curl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue))
        if let caFile = settings.caFile { kuroneko_curl_set_pointer(handle, CURLOPT_CAINFO, caFile) }
        kuroneko_curl_set_pointer(handle, CURLOPT_USERNAME, settings.user)
        kuroneko_curl_set_pointer(handle, CURLOPT_PASSWORD, settings.password)
        kuroneko_curl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, custom)
        kuroneko_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        kuroneko_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        kuroneko_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        kuroneko_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
        kuroneko_curl_set_write(handle, imapWrite, Unmanaged.passUnretained(self).toOpaque())
        let result = withExtendedLifetime(self) { curl_easy_perform(handle) }
        kuroneko_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
        guard result == CURLE_OK else {
            if overflow {
                throw MailboxError(
                    description: "a message in \(settings) is larger than \(Self.maximumMessageBytes >> 20) MiB",
                    tooLarge: true)
            }
            let detail = String(cString: errorText)
            let reason = detail.isEmpty ? (curl_easy_strerror(result).map { String(cString: $0) } ?? "error") : detail
            throw MailboxError(description: "\(settings) could not be read: \(reason)")
        }
        return received
    }

    fileprivate func take(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard received.count + bytes.count <= Self.maximumMessageBytes else {
            overflow = true
            return 0
        }
        received.append(contentsOf: bytes)
        return bytes.count
    }

    static func number(after marker: String, in text: String) -> UInt64? {
        guard let range = text.range(of: marker) else { return nil }
        return UInt64(text[range.upperBound...].prefix { $0.isNumber })
    }
}

extension MailboxSettings {
    /// The server's URL, no folder.
    var serverURL: String { folderURL().components(separatedBy: "/").prefix(3).joined(separator: "/") + "/" }
    /// The folder as an IMAP quoted string.
    var quotedFolder: String { Self.quoted(folder) }

    /// `folder` as an IMAP quoted string, in modified UTF-7.
    static func quoted(_ folder: String) -> String {
        let wire = IMAPFolderName.wire(folder)
        return "\"" + wire.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A folder name given on its own (`--mailbox-move-to`), or one line saying why it cannot be one.
    public static func checkedFolder(_ text: String) throws(MailboxSettingsError) -> String {
        let folder = text.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
        guard !folder.isEmpty, folder.count <= 200,
            !folder.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw MailboxSettingsError("the folder \"\(text.prefix(60).visibleInOneLine)\" is not a folder name (1 to 200 characters, no control characters)")
        }
        return folder
    }
}

private let imapReady: Bool = {
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    return true
}()

private func imapWrite(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else { return 0 }
    let session = Unmanaged<IMAPSession>.fromOpaque(context).takeUnretainedValue()
    return session.take(UnsafeRawBufferPointer(start: buffer, count: size * count))
}
