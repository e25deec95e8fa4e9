import ArgumentParser
import Foundation
import Kuroneko
import KuronekoStore

/// `kuroneko pages`: the refused pages the server kept, listed, shown and exported for a report.
struct PagesCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "pages", usage: "list | show ID | export ID FILE",
        summary: "the carriers' pages kuroneko serve could not read, kept (masked) to report a change",
        description: [
            "When a carrier's page is not laid out as the parser knows it (page_not_understood), kuroneko serve "
                + "keeps the page in the database: at most 3 per carrier an hour, 100 or 16 MiB in all, the oldest "
                + "dropped. Before it is kept, tracking, telephone and fax numbers become zeros of the same shape, "
                + "postcodes after 〒 too, and names (text with 様 or 殿) and the text after お届け先, ご依頼主, 住所 and "
                + "similar labels become ○, one per character; the markup is left as it was. list shows the kept "
                + "pages, show one's details, export writes its body to FILE (- for standard "
                + "output) to attach to a report."
        ],
        examples: [
            ("kuroneko pages list", "the kept pages, newest first"),
            ("kuroneko pages export 3 yamato-page.html", "the page to attach to a report"),
        ])

    @OptionGroup var database: DatabaseOption
    @Argument(
        help: .about("list, show ID or export ID FILE", value: "ACTION"),
        completion: .list(["list", "show", "export"]))
    var operands: [String] = []

    func run(on terminal: Terminal) async throws {
        let action = operands.first ?? "list"
        let expected = ["list": 1, "show": 2, "export": 3]
        guard let count = expected[action] else {
            let hint = Suggestion.closest(to: action, among: ["list", "show", "export"]).map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure.usage("pages: unknown action '\(action.prefix(40))'; \(hint)use list, show ID or export ID FILE")
        }
        guard operands.count == count else {
            throw CommandFailure.usage("pages: usage: kuroneko pages list | show ID | export ID FILE")
        }
        // A bad id is refused before the watch list is opened (or made, with its line on standard error).
        var id: Int64 = 0
        if action != "list" {
            let text = operands[1]
            guard let number = Int64(text), number > 0 else {
                throw CommandFailure.usage("pages: \"\(text.prefix(40))\" is not a page's id; expected a number from kuroneko pages list")
            }
            id = number
        }
        let session = try WatchListSession(self, terminal: terminal)
        let store = session.store
        if action == "list" {
            let pages = try await store.refusedPages(limit: 100)
            guard !pages.isEmpty else {
                terminal.print("no refused pages are kept (kuroneko serve keeps a page it could not read)")
                return
            }
            for record in pages {
                let page = record.page
                terminal.print(
                    "\(record.id)  \(JapanDateTime(page.receivedAt).iso8601)  \(page.carrier)  \(page.reason)  "
                        + "\(record.size) bytes" + (page.redacted ? "" : " (not kept: could not be masked)"))
            }
            return
        }
        guard let record = try await store.refusedPage(id) else {
            throw CommandFailure.usage("pages: no kept page has id \(id); kuroneko pages list shows the kept ones")
        }
        let page = record.page
        if action == "show" {
            terminal.print(
                """
                id: \(record.id)
                carrier: \(page.carrier)
                received: \(JapanDateTime(page.receivedAt).iso8601)
                reason: \(page.reason)
                message: \(page.message)
                url: \(page.url)
                charset: \(page.charset ?? "(not declared)")
                numbers asked: \(page.numbers)
                body: \(record.size) bytes\(page.redacted ? ", masked" : " (not kept: its encoding could not be masked safely)")
                """)
            return
        }
        let destination = operands[2]
        if destination == "-" {
            terminal.write(page.body)
            return
        }
        do {
            try page.body.write(to: URL(fileURLWithPath: destination), options: .withoutOverwriting)
        } catch {
            throw CommandFailure.usage(
                "pages: cannot write \(destination): \((error as NSError).localizedDescription); "
                    + "give a new file's path, or - for standard output")
        }
        terminal.print("wrote page \(id) (\(page.carrier), \(record.size) bytes) to \(destination)")
    }
}
