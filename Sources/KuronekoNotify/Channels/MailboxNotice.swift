import Foundation
import Kuroneko

/// What an operator's `mailbox_failing` or `mailbox_restored` announcement says, kept in the outbox as JSON.
public struct MailboxNotice: OperatorNotice {
    /// The mailbox's URL, without a password (`imaps://user@host/INBOX`).
    public let mailbox: String
    /// `true` for "read again".
    public let restored: Bool
    /// Why it cannot be read, in the words of the log.
    public let problem: String?
    public let at: Date

    public init(mailbox: String, restored: Bool, problem: String?, at: Date) {
        self.mailbox = mailbox
        self.restored = restored
        self.problem = problem
        self.at = at
    }
}

extension Announcement {
    /// The operator's message that the mailbox cannot be read, or is read again.
    public init(mailbox notice: MailboxNotice, language: AnnouncementLanguage, publicURL: URL?) {
        let japanese = language == .japanese
        kind = notice.restored ? .mailboxRestored : .mailboxFailing
        if notice.restored {
            title = japanese ? "メールボックスを再び読めています" : "The mailbox is read again"
            body =
                japanese
                ? "\(notice.mailbox) の発送メールを再び読んでいます。止まっていた間に届いたメールも読みます。"
                : "Kuroneko reads the shipping mails of \(notice.mailbox) again, those that came meanwhile included."
        } else {
            title = japanese ? "メールボックスを読めません" : "The mailbox cannot be read"
            let problem = notice.problem.map { String($0.prefix(300)) } ?? ""
            body =
                japanese
                ? "\(notice.mailbox) を読めないため、発送メールの荷物は追加されていません: \(problem)"
                    + "（届いたメールは読めるようになってから読みます。/readyz にも表示されます）"
                : "No parcels are added from the shipping mails of \(notice.mailbox): \(problem) "
                    + "(mail that arrives meanwhile is read once the mailbox can be read; /readyz shows it too)"
        }
        link = publicURL
        actionLink = nil
        actionTitle = ""
        number = ""
        urgent = !notice.restored
        topic = "mailbox"
    }
}
