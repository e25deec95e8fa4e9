import Foundation
import KuronekoStore

/// What a command changed, written to the list's audit log as the web app's changes are, named as the person who
/// ran it: the operating system's user and `(command line)`, as `tencho (command line)`.
extension WatchListSession {
    /// The audit log's name for whoever runs this command.
    static var commandLineActor: String {
        let uid = geteuid()
        var name = "uid \(uid)"
        if let entry = getpwuid(uid), let text = entry.pointee.pw_name.map({ String(cString: $0) }), !text.isEmpty {
            name = text
        }
        return "\(name) (command line)"
    }

    /// Records a change in the list's audit log; a database that keeps no log records nothing. A line that cannot
    /// be written is said (the change itself was made).
    func audit(_ action: String, _ detail: String, owner: WatchOwner) async {
        do {
            try await store.audit(
                list: owner.id, actor: Self.commandLineActor, action: action, detail: detail, at: Date())
        } catch {
            terminal.printError("kuroneko: the change was made, but its line in the audit log was not written: \(error)")
        }
    }
}
