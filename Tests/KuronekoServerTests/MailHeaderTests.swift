import Foundation
import KuronekoNotify
import Testing

@testable import KuronekoNotify

/// Every display name and header value Kuroneko writes is built, not pasted: a shop's name is one phrase before
/// one address whatever it holds, and a subject stays one header field showing the text given.
@Suite("mail headers built, not pasted")
struct MailHeaderTests {
    static let hostileNames = [
        "PayPal Security <security@paypal.com>, Support",
        "Shop\r\nBcc: victim@example.com",
        "Shop\nSubject: free money",
        #"Quote " in the middle, "and" \ a backslash"#,
        "a, b, c <x@example.com>; d <y@example.com>",
        "=?UTF-8?B?PGV2aWxAZXhhbXBsZS5jb20+?=",
        "=?ISO-2022-JP?B?GyRCJDMkcxsoQg==?= <z@example.com>",
        "(comment) shop@example.com",
        "くろねこ商店 <fake@example.com>, ",
        String(repeating: "Long shop name, ", count: 12),
        "",
    ]

    /// The From field's text, its folded lines joined.
    static func fromField(_ message: MailMessage) -> String {
        let text = String(decoding: message.rendered, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let field = lines.drop { !$0.hasPrefix("From:") }.prefix { $0.hasPrefix("From:") || $0.hasPrefix(" ") }
        return field.joined().dropFirst("From:".count).description
    }

    /// The mailboxes an RFC 5322 reader would find in a From field: commas and angle brackets outside quoted
    /// strings and comments separate and mark them; the display name's words, encoded words decoded.
    static func mailboxes(in field: String) -> (addresses: [String], name: String) {
        var addresses: [String] = []
        var name = ""
        var current = ""
        var quoted = false, escaped = false, comment = 0, angle = false
        for character in field {
            if escaped {
                name.append(character)
                escaped = false
                continue
            }
            if quoted {
                if character == "\\" { escaped = true } else if character == "\"" { quoted = false } else { name.append(character) }
                continue
            }
            if comment > 0 {
                if character == "(" { comment += 1 } else if character == ")" { comment -= 1 }
                continue
            }
            switch character {
            case "\"": quoted = true
            case "(": comment = 1
            case "<": angle = true; current = ""
            case ">": angle = false; addresses.append(current)
            case ",", ";": addresses.append("<separator>")
            default:
                if angle { current.append(character) } else { name.append(character) }
            }
        }
        let decoded = name.replacing(/=\?(UTF-8|ISO-2022-JP)\?B\?([A-Za-z0-9+\/=]*)\?=\s*/) { match in
            Data(base64Encoded: String(match.2)).map {
                match.1 == "UTF-8" ? String(decoding: $0, as: UTF8.self) : (String(data: $0, encoding: .iso2022JP) ?? "?")
            } ?? "?"
        }
        return (addresses, decoded.trimmingCharacters(in: .whitespaces))
    }

    @Test("a hostile shop name yields exactly one address in From, and reads back as given", arguments: MessageCharset.allCases)
    func oneAddress(charset: MessageCharset) throws {
        for name in Self.hostileNames {
            var message = MailMessage(
                from: try MailAddress(parsing: "notices@shop.example.jp"), to: try MailAddress(parsing: "a@example.jp"),
                subject: name, text: "x\n", html: "<p>x</p>", date: Date(timeIntervalSince1970: 1_800_000_000))
            message.fromName = name
            message.charset = charset
            let field = Self.fromField(message)
            let found = Self.mailboxes(in: field)
            #expect(found.addresses == ["notices@shop.example.jp"], "\(name.debugDescription) → \(field)")
            let shown = String(name.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
            #expect(found.name == shown.trimmingCharacters(in: .whitespaces), "\(name.debugDescription) → \(field)")
            let text = String(decoding: message.rendered, as: UTF8.self)
            let headers = text.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
            // No field a name could have added: one From, one Subject, no Bcc; each line a field or a fold.
            #expect(headers.filter { $0.hasPrefix("From:") }.count == 1 && headers.filter { $0.hasPrefix("Subject:") }.count == 1)
            #expect(!headers.contains { $0.lowercased().hasPrefix("bcc:") })
            #expect(headers.allSatisfy { $0.utf8.count <= 78 }, "\(headers.filter { $0.utf8.count > 78 })")
        }
    }
}
