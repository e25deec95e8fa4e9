import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore

/// `kuroneko users`: the people who sign in to the web app. `add NAME` makes an account, its password read from
/// standard input (one line, never the command line); the first account made is the admin of the list that
/// exists. `list` shows each account and its lists.
struct UsersCommand: ArgumentsCommand {
    static let spec = CommandCatalog.users
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let operands = arguments.operands
        let session = try WatchListSession(arguments, terminal: terminal)
        guard let accounts = session.store as? any AccountStore else {
            throw CommandFailure.usage("users: this database keeps no accounts")
        }
        switch operands.first {
        case "add"? where operands.count == 2:
            let name = operands[1].precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces).lowercased()
            guard (1...64).contains(name.count), !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw CommandFailure.usage("users: \"\(operands[1].prefix(64))\" is not a name: 1 to 64 characters, no spaces")
            }
            let line = readLine(strippingNewline: true) ?? ""
            if let problem = Passwords.problem(line) {
                throw CommandFailure.usage("users: the password (one line on standard input) \(problem)")
            }
            guard let hash = Passwords.hash(line) else { throw CommandFailure.usage("users: the password could not be hashed") }
            let user: UserRecord
            do {
                user = try await accounts.createUser(
                    name: name, displayName: arguments.text(.displayName) ?? operands[1], passwordHash: hash, at: Date())
            } catch AccountStoreError.nameTaken {
                throw CommandFailure.usage("users: \(name) has an account already; kuroneko users list shows them")
            }
            let lists = try await accounts.memberships(ofUser: user.id)
            terminal.print(
                "added \(user.name)"
                    + (lists.isEmpty ? " (a member of no list yet: an admin invites them)"
                        : ": " + lists.map { "\($0.role.rawValue) of \($0.listName)" }.joined(separator: ", ")))
        case "list"? where operands.count == 1:
            let members = try await accounts.members(ofList: "local")
            guard !members.isEmpty else {
                terminal.print("no accounts yet (kuroneko users add NAME makes the first, the list's admin)")
                return
            }
            for member in members { terminal.print("\(member.userName)  \(member.role.rawValue) of \(member.listName)") }
        default:
            throw CommandFailure.usage("users: usage: kuroneko users add NAME < password-file | list")
        }
    }
}
