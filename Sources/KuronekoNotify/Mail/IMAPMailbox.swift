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

    public init(description: String, tooLarge: Bool = false) {
        self.description = description
        self.tooLarge = tooLarge
    }
}

/// One conversation with an IMAP server over a connection of the project's own (``ClientConnection``: TLS from
/// OpenSSL), made at the first command, logged in and with the folder selected, and closed at the end. Every
/// answer it asks for is small: UIDs are searched in spans of ``searchSpan`` and messages fetched
/// ``fetchBatch`` at a time (`BODY.PEEK[]`, so \Seen is never set by reading), and whatever a server sends is
/// read within bounds (a line of 1 MiB, a message of ``maximumMessageBytes``), so no folder is too large and no
/// server's way of answering stops the reading. Blocking: call it off the cooperative pool.
public final class IMAPSession {
    /// The largest message fetched.
    public static let maximumMessageBytes = 25 << 20
    /// The most UIDs one `UID SEARCH` spans, and the most messages one `UID FETCH` asks for.
    public static let searchSpan: UInt64 = 1_000
    public static let fetchBatch = 50

    private let settings: MailboxSettings
    private var connection: ClientConnection?
    private var reader = IMAPResponseReader(maximumLiteral: IMAPSession.maximumMessageBytes)
    private var nextTag = 1
    /// The folder's UIDVALIDITY and UIDNEXT, as SELECT said them.
    private var selected: (uidValidity: UInt64, uidNext: UInt64)?

    public init(_ settings: MailboxSettings) throws(MailboxError) {
        self.settings = settings
    }

    /// The folder's UIDVALIDITY and UIDNEXT (from SELECT, which marks nothing).
    public func status() throws(MailboxError) -> (uidValidity: UInt64, uidNext: UInt64) {
        try select()
    }

    /// The UIDs above `after`, in order: all of them, or (with `limit`) the first `limit`, searched span by span.
    public func uids(after: UInt64, limit: Int = .max) throws(MailboxError) -> [UInt64] {
        // UIDs are 32-bit (RFC 9051): whatever a server or the store says, nothing past that is searched.
        let ceiling = UInt64(UInt32.max)
        let next = min(try select().uidNext, ceiling + 1)
        let after = min(after, ceiling)
        var found: [UInt64] = []
        var low = after + 1
        // A server that gives no UIDNEXT is asked up to the last message (`*`) in one search.
        guard next > 0 else { return Array(try search("\(low):*").filter { $0 > after }.sorted().prefix(limit)) }
        // An empty span doubles the next (up to 64 times the first, whose answer still stays well under a line's
        // limit), so a folder whose UIDs have long gaps is crossed in a few searches, not one per thousand.
        var span = Self.searchSpan
        while low < next, found.count < limit {
            let high = min(next - 1, low + span - 1)
            let inSpan = try search("\(low):\(high)").filter { $0 >= low && $0 <= high }.sorted()
            found += inSpan
            span = inSpan.isEmpty ? min(span * 2, Self.searchSpan * 64) : Self.searchSpan
            low = high + 1
        }
        return Array(found.prefix(limit))
    }

    /// Which of `uids` are not marked \Seen.
    public func unseen(_ uids: [UInt64]) throws(MailboxError) -> Set<UInt64> {
        var unseen = Set<UInt64>()
        for batch in Self.batches(uids) {
            for response in try command("UID FETCH \(Self.set(batch)) (UID FLAGS)") where response.tag == "*" {
                guard let uid = Self.number(after: "UID ", in: response.text), batch.contains(uid) else { continue }
                if !response.text.contains("\\Seen") { unseen.insert(uid) }
            }
        }
        return unseen
    }

    /// The sizes of `uids` (RFC822.SIZE), for those the server names.
    public func sizes(_ uids: [UInt64]) throws(MailboxError) -> [UInt64: Int] {
        var sizes: [UInt64: Int] = [:]
        for batch in Self.batches(uids) {
            for response in try command("UID FETCH \(Self.set(batch)) (UID RFC822.SIZE)") where response.tag == "*" {
                guard let uid = Self.number(after: "UID ", in: response.text),
                    let size = Self.number(after: "RFC822.SIZE ", in: response.text)
                else { continue }
                sizes[uid] = Int(clamping: size)
            }
        }
        return sizes
    }

    /// The whole message of `uid`, read without marking it \Seen.
    public func fetch(uid: UInt64) throws(MailboxError) -> Data {
        guard let found = try fetch([uid])[uid] else {
            throw MailboxError(description: "\(settings) has no message of UID \(uid)")
        }
        return try found.get()
    }

    /// The messages of `uids` (at most ``fetchBatch`` asked at once), read without marking them \Seen; each
    /// UID the server answered for, with its bytes or why it was not read. A message larger than
    /// ``maximumMessageBytes`` is not kept (its error says so) and does not stop the others.
    /// - Throws: when the conversation fails; what was read before is lost with it, so callers fetch in small
    ///   batches.
    public func fetch(_ uids: [UInt64]) throws(MailboxError) -> [UInt64: Result<Data, MailboxError>] {
        var found: [UInt64: Result<Data, MailboxError>] = [:]
        for batch in Self.batches(uids) {
            for response in try command("UID FETCH \(Self.set(batch)) (UID BODY.PEEK[])") where response.tag == "*" {
                guard response.text.contains("FETCH"), let uid = Self.number(after: "UID ", in: response.text) else {
                    continue
                }
                if let body = response.literals.first {
                    found[uid] = .success(body)
                } else if response.droppedLiterals > 0 {
                    found[uid] = .failure(
                        MailboxError(
                            description: "the message of UID \(uid) is larger than \(Self.maximumMessageBytes >> 20) MiB",
                            tooLarge: true))
                }
            }
        }
        return found
    }

    /// Moves `uids` to `folder` (RFC 6851's UID MOVE), making the folder first when the server says it is not
    /// there.
    public func move(_ uids: [UInt64], to folder: String) throws(MailboxError) {
        guard !uids.isEmpty else { return }
        let command = "UID MOVE \(Self.set(uids)) \(MailboxSettings.quoted(folder))"
        do {
            _ = try self.command(command)
        } catch {
            _ = try? self.command("CREATE \(MailboxSettings.quoted(folder))")
            do {
                _ = try self.command(command)
            } catch {
                throw MailboxError(description: "\(settings): the mail read could not be moved to \(folder): \(error)")
            }
        }
    }

    /// Sets or clears \Seen on `uid`.
    public func setSeen(_ seen: Bool, uid: UInt64) throws(MailboxError) {
        try setSeen(seen, uids: [uid])
    }

    /// Sets or clears \Seen on `uids`.
    public func setSeen(_ seen: Bool, uids: [UInt64]) throws(MailboxError) {
        for batch in Self.batches(uids) {
            _ = try command("UID STORE \(Self.set(batch)) \(seen ? "+" : "-")FLAGS.SILENT (\\Seen)")
        }
    }

    // MARK: The conversation

    private func select() throws(MailboxError) -> (uidValidity: UInt64, uidNext: UInt64) {
        if let selected { return selected }
        let responses = try command("SELECT \(settings.quotedFolder)", selecting: true)
        let text = responses.map(\.text).joined(separator: "\n")
        guard let validity = Self.number(after: "UIDVALIDITY ", in: text) else {
            throw MailboxError(description: "\(settings) answered SELECT without a UIDVALIDITY")
        }
        let status = (validity, Self.number(after: "UIDNEXT ", in: text) ?? 0)
        selected = status
        return status
    }

    private func search(_ range: String) throws(MailboxError) -> [UInt64] {
        var uids: [UInt64] = []
        for response in try command("UID SEARCH UID \(range)") where response.tag == "*" {
            guard response.text.hasPrefix("SEARCH") else { continue }
            uids += response.text.dropFirst("SEARCH".count).split(separator: " ").compactMap { UInt64($0) }
        }
        return uids
    }

    /// Sends one command (connecting, logging in and selecting the folder first when needed) and reads its
    /// responses up to its tagged end. - Throws: on `NO` or `BAD`, or when the conversation fails.
    private func command(_ text: String, selecting: Bool = false) throws(MailboxError) -> [IMAPResponse] {
        if connection == nil { try open() }
        if !selecting, selected == nil { _ = try select() }
        return try send(text)
    }

    private func send(_ text: String, sensitive: Bool = false) throws(MailboxError) -> [IMAPResponse] {
        guard let connection else { throw MailboxError(description: "\(settings): not connected") }
        let tag = "K\(nextTag)"
        nextTag += 1
        do throws(MailboxError) {
            try Self.io { () throws(ConnectionError) in try connection.write(Data("\(tag) \(text)\r\n".utf8)) }
            var responses: [IMAPResponse] = []
            while true {
                while let response = try reader.next() {
                    if response.tag == tag {
                        guard response.condition == "OK" else {
                            let shown = sensitive ? "LOGIN" : String(text.prefix(60))
                            throw MailboxError(
                                description: "\(settings) refused \(shown): \(response.text.prefix(200).visibleInOneLine)")
                        }
                        return responses
                    }
                    if response.tag == "*" || response.tag == "+" {
                        // Untagged answers are bounded too: a server that floods them is cut off.
                        guard responses.count < 100_000 else {
                            throw MailboxError(description: "\(settings) sent more than 100,000 lines for one command")
                        }
                        responses.append(response)
                    }
                }
                reader.feed(try Self.io { () throws(ConnectionError) in try connection.read(upTo: 64 << 10) })
            }
        } catch {
            // A conversation that failed midway cannot go on: the next command starts a new one.
            self.connection = nil
            reader = IMAPResponseReader(maximumLiteral: Self.maximumMessageBytes)
            selected = nil
            throw error
        }
    }

    /// Connects, reads the greeting, upgrades `imap://` with STARTTLS, and logs in.
    private func open() throws(MailboxError) {
        let scheme = settings.url.scheme?.lowercased() ?? "imaps"
        let port = settings.url.port ?? (scheme == "imaps" ? 993 : 143)
        let host = settings.url.host ?? ""
        reader = IMAPResponseReader(maximumLiteral: Self.maximumMessageBytes)
        selected = nil
        do throws(MailboxError) {
            let made = try Self.io { () throws(ConnectionError) in
                try ClientConnection(
                    host: host, port: port, timeout: settings.timeout, tls: scheme == "imaps", caFile: settings.caFile)
            }
            connection = made
            var greeting: IMAPResponse?
            while greeting == nil {
                reader.feed(try Self.io { () throws(ConnectionError) in try made.read(upTo: 4_096) })
                greeting = try reader.next()
            }
            guard greeting?.condition == "OK" || greeting?.condition == "PREAUTH" else {
                throw MailboxError(description: "\(settings) greeted with \(greeting?.text.prefix(100).visibleInOneLine ?? "nothing")")
            }
            if scheme == "imap" {
                _ = try send("STARTTLS")
                try Self.io { () throws(ConnectionError) in try made.startTLS(caFile: settings.caFile) }
            }
            guard !settings.user.contains(where: \.isNewline), !settings.password.contains(where: \.isNewline) else {
                throw MailboxError(description: "\(settings): a user or password with a line break cannot be sent")
            }
            _ = try send("LOGIN \(Self.quoted(settings.user)) \(Self.quoted(settings.password))", sensitive: true)
        } catch {
            connection = nil
            throw MailboxError(description: "\(settings) could not be read: \(error)")
        }
    }

    /// A connection's failure as the mailbox's.
    private static func io<T>(_ body: () throws(ConnectionError) -> T) throws(MailboxError) -> T {
        do { return try body() } catch { throw MailboxError(description: error.description) }
    }

    // MARK: Words

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// UIDs as an IMAP set, runs written `a:b`.
    static func set(_ uids: [UInt64]) -> String {
        let sorted = Array(Set(uids)).sorted()
        var parts: [String] = []
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            parts.append(end == index ? "\(sorted[index])" : "\(sorted[index]):\(sorted[end])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }

    public static func batches(_ uids: [UInt64]) -> [[UInt64]] {
        stride(from: 0, to: uids.count, by: fetchBatch).map { Array(uids[$0..<min(uids.count, $0 + fetchBatch)]) }
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
