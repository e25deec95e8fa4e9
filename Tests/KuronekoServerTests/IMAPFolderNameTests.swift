import Foundation
import KuronekoNotify
import Testing

/// Folder names as IMAP servers take them (RFC 3501's modified UTF-7), and mailbox URLs with them.
@Suite("IMAP folder names")
struct IMAPFolderNameTests {
    @Test("RFC 3501's example and Japanese names are encoded; ASCII names, & included, are sent as written")
    func wire() {
        #expect(IMAPFolderName.wire("~peter/mail/台北/日本語") == "~peter/mail/&U,BTFw-/&ZeVnLIqe-")
        #expect(IMAPFolderName.wire("通販") == "&kBqMqQ-")
        #expect(IMAPFolderName.wire("[Gmail]/すべてのメール") == "[Gmail]/&MFkweTBmMG4w4TD8MOs-")
        #expect(IMAPFolderName.wire("INBOX") == "INBOX")
        #expect(IMAPFolderName.wire("&kBqMqQ-") == "&kBqMqQ-", "already in modified UTF-7, as the server lists it")
        #expect(IMAPFolderName.wire("A&B 発送") == "A&-B &dnqQAQ-")
        #expect(IMAPFolderName.wire("😀") == "&2D3eAA-", "a character outside the BMP is its surrogate pair")
    }

    @Test("a mailbox URL names its folder in Japanese, written plainly or percent-encoded; a space is taken too")
    func settings() throws {
        let plain = try MailboxSettings(url: "imaps://hanako@mail.example.jp/通販", password: "p")
        #expect(plain.folder == "通販")
        let encoded = try MailboxSettings(url: "imaps://hanako@mail.example.jp/%E9%80%9A%E8%B2%A9", password: "p")
        #expect(encoded.folder == "通販")
        #expect(encoded.description == "imaps://hanako@mail.example.jp/通販")
        let gmail = try MailboxSettings(url: "imaps://hanako%40gmail.com@imap.gmail.com:993/[Gmail]/すべてのメール", password: "p")
        #expect(gmail.user == "hanako@gmail.com" && gmail.folder == "[Gmail]/すべてのメール")
        #expect(gmail.description == "imaps://hanako%40gmail.com@imap.gmail.com:993/[Gmail]/すべてのメール")
        let spaced = try MailboxSettings(url: "imaps://hanako@mail.example.jp/Online Orders", password: "p")
        #expect(spaced.folder == "Online Orders")
        #expect(throws: MailboxSettingsError.self) { try MailboxSettings(url: "imaps://mail.example.jp/通販", password: "p") }
    }
}
