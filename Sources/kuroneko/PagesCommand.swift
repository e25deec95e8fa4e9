import Foundation
import Kuroneko
import KuronekoStore

/// `kuroneko pages`: the refused pages the server kept, listed, shown and exported for a report.
struct PagesCommand: ArgumentsCommand {
    static let spec = CommandCatalog.pages
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let action = arguments.operands.first ?? "list"
        let expected = ["list": 1, "show": 2, "export": 3]
        guard let count = expected[action] else {
            let hint = Suggestion.closest(to: action, among: ["list", "show", "export"]).map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure.usage("pages: unknown action '\(action.prefix(40))'; \(hint)use list, show ID or export ID FILE")
        }
        guard arguments.operands.count == count else {
            throw CommandFailure.usage("pages: usage: kuroneko pages list | show ID | export ID FILE")
        }
        // A bad id is refused before the watch list is opened (or made, with its line on standard error).
        var id: Int64 = 0
        if action != "list" {
            let text = arguments.operands[1]
            guard let number = Int64(text), number > 0 else {
                throw CommandFailure.usage("pages: \"\(text.prefix(40))\" is not a page's id; expected a number from kuroneko pages list")
            }
            id = number
        }
        let session = try WatchListSession(arguments, terminal: terminal)
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
        let destination = arguments.operands[2]
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
