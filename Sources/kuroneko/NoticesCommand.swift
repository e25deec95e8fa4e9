import ArgumentParser
import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoCrypto

/// `kuroneko notices`: the local owner's customer-notice settings shown or set from a JSON file, and one
/// parcel's notice previewed as the server renders it (the queued one as it is sent).
struct NoticesCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "notices", usage: "settings [FILE] | preview NUMBER --milestone MILESTONE",
        summary: "the shop's notices to its customers: settings, and a parcel's notice as it is sent",
        description: [
            "kuroneko serve (with --smtp-url, --smtp-from and --public-url) tells each parcel's recipient, by the "
                + "e-mail of its record, at the milestones chosen: shipped, out_for_delivery, delivered, "
                + "missed_delivery, problem; each at most once, none for a parcel already delivered when added or news "
                + "over 7 days old. settings prints the local owner's settings as JSON; settings FILE sets them from "
                + "a JSON file (the same keys as PUT /v1/notices/settings). preview renders a watched parcel's notice "
                + "as the server does (the queued one as it is sent): give --smtp-from and --public-url as the server "
                + "has them for the same From and stop link."
        ],
        examples: [
            ("kuroneko notices settings shop.json", "set the shop's name, address, contact and milestones"),
            ("kuroneko notices preview 4912-3456-7890 --milestone shipped", "the shipped notice of one parcel"),
        ])

    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Option(help: .about("the milestone to preview", value: "MILESTONE")) var milestone: CustomerMilestone?
    @Option(help: .about("the notice's language (default: the settings')", value: "LANG")) var lang: Language?
    @Option(help: .about("the notice's character set (default: the settings')", value: "CHARSET"))
    var mailCharset: MessageCharset?
    @Flag(help: "print the whole message as it goes over SMTP") var raw = false
    @Option(help: .about("the address the server sends from", value: "ADDRESS")) var smtpFrom: String?
    @Option(help: .about("the server's --public-url (the stop link)", value: "URL")) var publicUrl: String?
    @Argument(
        help: .about("settings [FILE], or preview and the parcel's number", value: "ACTION"),
        completion: .list(["settings", "preview"]))
    var operands: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        switch operands.first {
        case "settings"?:
            guard operands.count <= 2 else {
                throw CommandFailure.usage("notices: usage: kuroneko notices settings [FILE]")
            }
            let session = try WatchListSession(self, terminal: terminal)
            let owner = try await session.owner()
            if operands.count == 2 {
                let path = operands[1]
                guard let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                    : FileManager.default.contents(atPath: path), data.count <= 65_536
                else {
                    throw CommandFailure.usage("notices: \(path) cannot be read (or is over 64 KiB); expected a JSON file")
                }
                let settings: NoticeSettings
                do { settings = try NoticeSettings.parse(data) } catch {
                    throw CommandFailure.usage("notices: \(path): \(error.description)")
                }
                if settings.enabled, !settings.missingForSending.isEmpty {
                    throw CommandFailure.usage(
                        "notices: \(path): \(settings.missingForSending.joined(separator: ", ")) must be given to "
                            + "send notices (a mail to customers names the shop, its address and a contact)")
                }
                try await session.store.saveNoticeSettings(settings.data, owner: owner, at: Date())
            }
            let stored = NoticeSettings.stored(try await session.store.noticeSettingsJSON(owner: owner))
            terminal.print(String(decoding: stored.data, as: UTF8.self))
        case "preview"?:
            guard operands.count == 2 else {
                throw CommandFailure.usage("notices: usage: kuroneko notices preview NUMBER --milestone MILESTONE")
            }
            try await preview(operands[1], on: terminal)
        case let other:
            let hint = other.flatMap { Suggestion.closest(to: $0, among: ["settings", "preview"]) }
                .map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure.usage(
                "notices: \(other.map { "unknown action '\($0.prefix(40))'; " } ?? "")\(hint)use settings [FILE] or "
                    + "preview NUMBER --milestone MILESTONE")
        }
    }

    private func preview(_ text: String, on terminal: Terminal) async throws {
        let number: TrackingNumber
        do { number = try TrackingNumber(parsing: text) } catch {
            throw CommandFailure.usage("notices: \"\(text.prefix(40))\" \(error)")
        }
        guard let milestone else {
            throw CommandFailure.usage(
                "notices: preview needs --milestone, one of "
                    + CustomerMilestone.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        let owner = try await session.owner()
        guard let watch = try await store.watch(number, owner: owner) else {
            throw CommandFailure.usage("notices: \(number.formatted) is not on the watch list; kuroneko list shows it")
        }
        var settings = NoticeSettings.stored(try await store.noticeSettingsJSON(owner: owner))
        if let language = lang.flatMap({ AnnouncementLanguage(rawValue: $0.rawValue) }) {
            settings.language = language
        }
        if let mailCharset { settings.charset = mailCharset }
        guard let (notice, _) = try await CustomerNoticeMail.notice(for: watch, milestone: milestone, store: store, now: Date())
        else {
            throw CommandFailure.usage("notices: \(number.formatted) has no answer from its carrier yet; kuroneko refresh checks it")
        }
        var from = "notices@example.invalid"
        if let text = smtpFrom { from = text }
        let address: MailAddress
        do { address = try MailAddress(parsing: from) } catch {
            throw CommandFailure.usage("notices: --smtp-from \"\(from.prefix(80))\" \(error)")
        }
        let publicURL = try reader(terminal).url(publicUrl, Setting("--public-url")) ?? URL(string: "https://kuroneko.example.invalid")!
        let key = try await store.setting("notice_stop_key", otherwise: Secrets.random(bytes: 32))
        let mail = CustomerNoticeMail(sender: UnsentMail(), from: address, publicURL: publicURL, stopKey: key)
        guard let rendered = mail.render(notice, settings: settings) else {
            throw CommandFailure.usage("notices: the parcel's recipient address or answer cannot be read for a notice")
        }
        if raw {
            terminal.print(String(decoding: rendered.message.rendered, as: UTF8.self))
            return
        }
        terminal.print("To: \(notice.address)\nSubject: \(rendered.subject)\nCharset: \(rendered.charset.rawValue)\n")
        terminal.print(rendered.text)
    }
}
