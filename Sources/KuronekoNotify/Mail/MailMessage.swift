import Foundation

/// One e-mail: an announcement or a customer notice as a `multipart/alternative` message (RFC 5322 and
/// 2045-2047) with a plain text part and an HTML part, UTF-8 in base64 or ISO-2022-JP in 7 bits, the subject
/// and the sender's name encoded words when they are not ASCII.
public struct MailMessage: Sendable, Hashable {
    public let from: MailAddress
    /// The sender's name shown before the address (a shop's name); `nil`: the address alone.
    public var fromName: String?
    /// The parts' and the encoded words' character set.
    public var charset: MessageCharset = .utf8
    /// More header fields, in order (`Reply-To`, `List-Unsubscribe`): values already checked, ASCII.
    public var extraHeaders: [MailHeaderField] = []
    public let to: MailAddress
    public let subject: String
    public let text: String
    public let html: String
    public let date: Date
    /// `<…@kuroneko>`: one per message.
    public let messageID: String

    public init(
        from: MailAddress, to: MailAddress, subject: String, text: String, html: String, date: Date,
        messageID: String = "<\(UUID().uuidString.lowercased())@kuroneko>"
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.messageID = messageID
    }

    /// The message for an announcement: its title as the subject; what happened, the parcel's link and the
    /// carrier's change page in both parts.
    public init(_ announcement: Announcement, from: MailAddress, to: MailAddress, date: Date) {
        var lines = [announcement.body]
        var html = ["<p>\(Self.escaped(announcement.body))</p>"]
        if let link = announcement.link {
            lines.append(link.absoluteString)
            html.append(
                "<p><a href=\"\(Self.escaped(link.absoluteString))\">\(Self.escaped(announcement.title))</a></p>")
        }
        if let action = announcement.actionLink {
            lines.append("\(announcement.actionTitle): \(action.absoluteString)")
            html.append(
                "<p><a href=\"\(Self.escaped(action.absoluteString))\">\(Self.escaped(announcement.actionTitle))</a></p>"
            )
        }
        self.init(
            from: from, to: to, subject: announcement.title, text: lines.joined(separator: "\n\n") + "\n",
            html: "<!doctype html><html><body><h1>\(Self.escaped(announcement.title))</h1>" + html.joined()
                + "</body></html>\n",
            date: date)
    }

    /// The message as it goes over SMTP: CRLF line ends, no line over 78 characters.
    public var rendered: Data {
        let boundary = "kuroneko-" + messageID.filter { $0.isLetter || $0.isNumber }.prefix(24)
        let sender = fromName.map { Self.mailbox(name: Self.displayName($0, charset: charset), address: from) } ?? from.text
        let headers =
            [
                "From: \(sender)", "To: \(to.text)", "Subject: \(Self.headerText(subject, charset: charset))",
                "Date: \(Self.rfc5322Date(date))", "Message-ID: \(messageID)",
            ] + extraHeaders.map { "\($0.name): \($0.value)" } + [
                "MIME-Version: 1.0", "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",
                "Auto-Submitted: auto-generated",
            ]
        var out = Data((headers + [""]).joined(separator: "\r\n").utf8)
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            switch charset {
            case .utf8:
                let lines =
                    ["", "--\(boundary)", "Content-Type: \(type); charset=UTF-8", "Content-Transfer-Encoding: base64", ""]
                    + Self.wrapped(Data(body.utf8).base64EncodedString())
                out.append(Data(lines.joined(separator: "\r\n").utf8))
            case .iso2022JP:
                let head = ["", "--\(boundary)", "Content-Type: \(type); charset=ISO-2022-JP", "Content-Transfer-Encoding: 7bit", ""]
                out.append(Data(head.joined(separator: "\r\n").utf8))
                // Each line its own ISO-2022-JP run, back in ASCII at its end (RFC 1468).
                for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
                    out.append(Data("\r\n".utf8))
                    out.append(JapaneseMailText.encoded(String(line)) ?? Data(String(line).utf8))
                }
            }
        }
        out.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return out
    }

    /// A header value: control characters made spaces; beyond ASCII, RFC 2047 encoded words of at most 75
    /// characters each (so that "Subject: " and the first stay within 78), split between characters.
    /// In ISO-2022-JP each word is a whole run (ending back in ASCII), at most 36 bytes before base64.
    /// ASCII text is kept as it is unless it looks like an encoded word (`=?`) or would make the line longer than
    /// 78 characters: then it is encoded too, so that a client shows exactly the text given.
    static func headerText(_ value: String, charset: MessageCharset = .utf8) -> String {
        let clean = Self.withoutControls(value)
        guard Self.needsEncoding(clean) else { return clean }
        return encodedWords(clean, charset: charset)
    }

    /// A display name before `<address>` (RFC 5322 `phrase`): plain ASCII as one quoted string (its `"` and `\`
    /// escaped), anything else as encoded words. Either way it is one phrase: no comma, angle bracket, quote or
    /// line break in it can add a mailbox or a header field.
    static func displayName(_ name: String, charset: MessageCharset = .utf8) -> String {
        let clean = Self.withoutControls(name)
        guard Self.needsEncoding(clean) || clean.utf8.count > 60 else {
            return "\"" + clean.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return encodedWords(clean, charset: charset)
    }

    /// `name <address>`, the address on a line of its own when the name's last line would run past 78.
    private static func mailbox(name: String, address: MailAddress) -> String {
        let lastLine = name.components(separatedBy: "\r\n").last ?? name
        let prefix = name.contains("\r\n") ? 0 : "From: ".count
        return name + (prefix + lastLine.utf8.count + address.text.utf8.count + 3 > 78 ? "\r\n <" : " <") + address.text + ">"
    }

    private static func withoutControls(_ value: String) -> String {
        String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }

    /// Beyond ASCII, an encoded word's look (`=?`), or longer than fits one line after the field's name.
    private static func needsEncoding(_ clean: String) -> Bool {
        !clean.unicodeScalars.allSatisfy(\.isASCII) || clean.contains("=?") || clean.utf8.count > 66
    }

    /// Encoded words of at most 75 characters each, on lines of their own, split between characters.
    private static func encodedWords(_ clean: String, charset: MessageCharset) -> String {
        let bytes: (String) -> Data? =
            charset == .utf8 ? { Data($0.utf8) } : { JapaneseMailText.encoded($0) }
        let limit = charset == .utf8 ? 39 : 36
        var words: [Data] = []
        var chunk = ""
        for character in clean {
            let longer = chunk + String(character)
            if let encoded = bytes(longer), encoded.count > limit, let done = bytes(chunk), !chunk.isEmpty {
                words.append(done)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(bytes(chunk) ?? Data(chunk.utf8)) }
        let name = charset == .utf8 ? "UTF-8" : "ISO-2022-JP"
        return words.map { "=?\(name)?B?" + $0.base64EncodedString() + "?=" }.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Tokyo")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    private static func wrapped(_ base64: String) -> [String] {
        var lines: [String] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(76)))
            rest = rest.dropFirst(76)
        }
        return lines
    }

    /// HTML-escaped text, for a page.
    public static func escapedForPage(_ text: String) -> String { escaped(text) }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// A message's character set: UTF-8 (base64), or ISO-2022-JP (7 bits), which older Japanese mail programs and
/// phones read best.
public enum MessageCharset: String, Sendable, Hashable, Codable, CaseIterable {
    case utf8 = "utf-8"
    case iso2022JP = "iso-2022-jp"
}

/// One header field a message adds: a name and an ASCII value without line breaks.
public struct MailHeaderField: Sendable, Hashable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = String(value.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F })
    }
}
