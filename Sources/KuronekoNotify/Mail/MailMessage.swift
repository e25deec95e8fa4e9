import Foundation

/// One e-mail: an announcement as a `multipart/alternative` message (RFC 5322 and 2045-2047) with a plain
/// text part and an HTML part, both UTF-8 in base64, the subject an encoded word when it is not ASCII.
public struct MailMessage: Sendable, Hashable {
    public let from: MailAddress
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
        let headers = [
            "From: \(from.text)", "To: \(to.text)", "Subject: \(Self.headerText(subject))",
            "Date: \(Self.rfc5322Date(date))", "Message-ID: \(messageID)", "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"", "Auto-Submitted: auto-generated",
        ]
        var lines = headers + [""]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)", "Content-Type: \(type); charset=UTF-8", "Content-Transfer-Encoding: base64", "",
            ]
            lines += Self.wrapped(Data(body.utf8).base64EncodedString())
        }
        lines += ["--\(boundary)--", ""]
        return Data(lines.joined(separator: "\r\n").utf8)
    }

    /// A header value: control characters made spaces; beyond ASCII, RFC 2047 encoded words of at most 75
    /// characters each (so that "Subject: " and the first stay within 78), split between characters.
    static func headerText(_ value: String) -> String {
        let clean = String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        guard !clean.unicodeScalars.allSatisfy(\.isASCII) else { return clean }
        var words: [String] = []
        var chunk = ""
        for character in clean {
            if Data((chunk + String(character)).utf8).count > 39 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?" + Data($0.utf8).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
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
