import ArgumentParser
import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import KuronekoAccounts

/// `kuroneko users`: the people who sign in to the web app. `add NAME` makes an account, its password read from
/// standard input (one line, never the command line); the first account made is the admin of every list that
/// exists; `--list` and `--role` make the new account a member of a list. `list` shows each list's members.
struct UsersCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "users", usage: "add NAME | list",
        summary: "the people who sign in to the web app",
        description: [
            "add makes an account; its password is one line on standard input (never the command line), at least 8 "
                + "characters, stored as a scrypt hash. The first account made is the admin of every list that exists "
                + "(today's, every parcel, channel and mailbox in it, and each command-line key's); others join through "
                + "an admin's invitation (POST /v1/invitations) or with --list and --role here. Once an account exists, "
                + "the API lets nobody in without signing in or a key. list shows every list's members."
        ],
        examples: [
            ("printf '%s\\n' \"$PASSWORD\" | kuroneko users add mama", "the first account: the list's admin"),
            ("kuroneko users list", "who signs in"),
            ("printf '%s\\n' \"$PASSWORD\" | kuroneko users add kenta --list shop --role viewer", "a viewer of the list shop"),
        ])

    @Option(help: .about("the name shown to the list's other members", value: "NAME")) var displayName: String?
    @OptionGroup var database: DatabaseOption
    @OptionGroup var list: ListOption
    @Option(help: .about("with --list: the new member's role (default staff)", value: "ROLE")) var role: ListRole?
    @Argument(help: .about("add and the account's name, or list", value: "ACTION"), completion: .list(["add", "list"]))
    var operands: [String] = []

    var listName: String? { list.list }

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
        let accounts = Self.accounts(session, command: "users")
        switch operands.first {
        case "add"? where operands.count == 2:
            let name = try Self.userName(operands[1])
            let joining = list.list == nil ? nil : try await session.owner()
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
                    name: name, displayName: displayName ?? operands[1], passwordHash: hash, at: Date())
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
struct ListsCommand: WatchListCommand {
    static let configuration = CommandConfiguration.command(
        "lists", usage: "list | create NAME",
        summary: "the lists people share: today's, each command-line key's, and more",
        description: [
            "list shows every list: its id, name, parcels and members. create NAME makes another list (a second shop, "
                + "a relative's parcels), with --admin USER as its admin; the other commands act on it with --list."
        ],
        examples: [
            ("kuroneko lists", "the lists and who is in each"),
            ("kuroneko lists create 実家 --admin mama", "a list for the parents' parcels"),
            ("kuroneko add 4912-3456-7890 --list 実家", "a parcel on it"),
        ])

    @OptionGroup var database: DatabaseOption
    @Option(help: .about("with create: the account that becomes the new list's admin", value: "USER")) var admin: String?
    @Argument(help: .about("list, or create and the new list's name", value: "ACTION"), completion: .list(["list", "create"]))
    var operands: [String] = []

    func run(on terminal: Terminal) async throws {
        let session = try WatchListSession(self, terminal: terminal)
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
            var adminUser: UserRecord?
            if let wanted = admin {
                adminUser = try await accounts.user(named: try UsersCommand.userName(wanted))
                guard adminUser?.removedAt == nil, adminUser != nil else {
                    throw CommandFailure.usage("lists: --admin: no account named \"\(wanted.prefix(64))\"; kuroneko users list shows them")
                }
            }
            let list = try await accounts.createList(name: name, admin: adminUser?.id, at: Date())
            terminal.print(
                "made the list \(list.name) (\(list.id))"
                    + (adminUser.map { ", \($0.name) its admin" } ?? "; kuroneko users add NAME --list \(list.id) gives it members"))
        default:
            throw CommandFailure.usage("lists: usage: kuroneko lists [list] | lists create NAME [--admin USER]")
        }
    }
}
