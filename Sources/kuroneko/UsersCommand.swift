import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore

/// `kuroneko users`: the people who sign in to the web app. `add NAME` makes an account, its password read from
/// standard input (one line, never the command line); the first account made is the admin of every list that
/// exists; `--list` and `--role` make the new account a member of a list. `list` shows each list's members.
struct UsersCommand: ArgumentsCommand {
    static let spec = CommandCatalog.users
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let operands = arguments.operands
        let session = try WatchListSession(arguments, terminal: terminal)
        let accounts = Self.accounts(session, command: "users")
        switch operands.first {
        case "add"? where operands.count == 2:
            let name = try Self.userName(operands[1])
            let joining = arguments.text(.list) == nil ? nil : try await session.owner()
            let role = try arguments.choice(.role).flatMap(ListRole.init(rawValue:))
            if role != nil, joining == nil {
                throw CommandFailure.usage("users: --role is the role in the list --list names; add --list")
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
            if let joining, try await !accounts.memberships(ofUser: user.id).contains(where: { $0.listID == joining.id }) {
                try await accounts.setMember(list: joining.id, user: user.id, role: role ?? .staff, at: Date())
            }
            let lists = try await accounts.memberships(ofUser: user.id)
            terminal.print(
                "added \(user.name)"
                    + (lists.isEmpty ? " (a member of no list yet: an admin invites them)"
                        : ": " + lists.map { "\($0.role.rawValue) of \($0.listName)" }.joined(separator: ", ")))
        case "list"? where operands.count == 1:
            var anyone = false
            for list in try await accounts.lists() {
                for member in try await accounts.members(ofList: list.id) {
                    anyone = true
                    terminal.print("\(member.userName)  \(member.role.rawValue) of \(member.listName) (\(list.id))")
                }
            }
            if !anyone { terminal.print("no accounts yet (kuroneko users add NAME makes the first, the lists' admin)") }
        default:
            throw CommandFailure.usage("users: usage: kuroneko users add NAME [--list LIST --role ROLE] < password-file | list")
        }
    }

    static func accounts(_ session: WatchListSession, command: String) -> any AccountStore {
        session.store
    }

    /// A sign-in name as stored: width folded, lower case; 1 to 64 characters without spaces.
    static func userName(_ text: String) throws(CommandFailure) -> String {
        let name = text.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces).lowercased()
        guard (1...64).contains(name.count), !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .usage("users: \"\(text.prefix(64))\" is not a name: 1 to 64 characters, no spaces")
        }
        return name
    }
}

/// `kuroneko lists`: the lists people share, and a new one.
struct ListsCommand: ArgumentsCommand {
    static let spec = CommandCatalog.lists
    let arguments: ArgumentList
    let terminal: Terminal

    func run() async throws {
        let operands = arguments.operands
        let session = try WatchListSession(arguments, terminal: terminal)
        let accounts = UsersCommand.accounts(session, command: "lists")
        switch operands.first {
        case nil, "list"? where operands.count <= 1:
            for list in try await accounts.lists() {
                let members = try await accounts.members(ofList: list.id).map { "\($0.userName) (\($0.role.rawValue))" }
                terminal.print(
                    "\(list.id)  \(list.name)  \(list.watches) parcel(s)  "
                        + (members.isEmpty ? "no members" : members.joined(separator: ", ")))
            }
        case "create"? where operands.count == 2:
            let name = operands[1].trimmingCharacters(in: .whitespaces)
            guard (1...100).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw CommandFailure.usage("lists: \"\(operands[1].prefix(100))\" is not a list name: 1 to 100 characters")
            }
            var admin: UserRecord?
            if let wanted = arguments.text(.admin) {
                admin = try await accounts.user(named: try UsersCommand.userName(wanted))
                guard admin?.removedAt == nil, admin != nil else {
                    throw CommandFailure.usage("lists: --admin: no account named \"\(wanted.prefix(64))\"; kuroneko users list shows them")
                }
            }
            let list = try await accounts.createList(name: name, admin: admin?.id, at: Date())
            terminal.print(
                "made the list \(list.name) (\(list.id))"
                    + (admin.map { ", \($0.name) its admin" } ?? "; kuroneko users add NAME --list \(list.id) gives it members"))
        default:
            throw CommandFailure.usage("lists: usage: kuroneko lists [list] | lists create NAME [--admin USER]")
        }
    }
}
