import Foundation

/// A member's role in a list, highest first: an admin manages members, settings and the list's channels; staff
/// add, edit, mark handled, remove, import and export; a viewer reads.
public enum ListRole: String, Sendable, Hashable, CaseIterable, Comparable {
    case admin, staff, viewer

    var rank: Int {
        switch self {
        case .admin: 3
        case .staff: 2
        case .viewer: 1
        }
    }

    public static func < (left: ListRole, right: ListRole) -> Bool { left.rank < right.rank }
}

public struct UserRecord: Sendable, Hashable {
    public let id: Int64
    /// The sign-in name, folded (lower case, width folded).
    public let name: String
    public let displayName: String
    public let passwordHash: String?
    public let createdAt: Date
    public let removedAt: Date?
}

public struct Membership: Sendable, Hashable {
    public let listID: String
    public let listName: String
    public let userID: Int64
    public let userName: String
    public let role: ListRole
    /// The name other members see (ママ), chosen when the account was made; the user name when none was.
    public var userDisplayName: String = ""
}

public struct SessionRecord: Sendable, Hashable {
    public let userID: Int64
    public let userName: String
    public let listID: String
    public let role: ListRole
    public let csrf: String
    public let createdAt: Date
    public let lastUsedAt: Date
}

/// A list people share: today's (`local`), a key's made on the command line (`key:ID`), or one made since
/// (`list:…`). Its id is the owner of its watches, channels and settings.
public struct ListRecord: Sendable, Hashable {
    public let id: String
    public let name: String
    public let createdAt: Date
    /// How many watches it holds, active or not.
    public let watches: Int
    public let members: Int
}

/// A person's passkey: the credential's id and public key (an uncompressed P-256 point), its counter.
public struct PasskeyRecord: Sendable, Hashable {
    public let credentialID: Data
    public let userID: Int64
    public let publicKey: Data
    public let signCount: UInt32
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?

    public init(
        credentialID: Data, userID: Int64, publicKey: Data, signCount: UInt32, name: String, createdAt: Date,
        lastUsedAt: Date?
    ) {
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.signCount = signCount
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

public struct AuditEntry: Sendable, Hashable {
    public let at: Date
    public let actor: String
    public let action: String
    public let detail: String
}

/// Why an account change was refused.
public enum AccountStoreError: Error, Sendable, Hashable {
    case nameTaken(String)
    case noSuchUser(String)
    case noSuchList(String)
}

/// People, lists, members, sessions, invitations and the audit log.
/// The whole store of a server's lists: their watches and their accounts (both engines are both), so nothing that
/// holds it has to ask which it is.
public typealias ListStore = WatchStore & AccountStore

/// People and the lists they share: users, lists, members and their roles.
public protocol PeopleStore: Sendable {
    /// Every list, by name.
    func lists() async throws -> [ListRecord]
    /// Makes a list with an id of its own (`list:` and 16 hex digits); `admin` becomes its admin.
    func createList(name: String, admin: Int64?, at: Date) async throws -> ListRecord
    /// Makes an account; the first one made becomes the admin of every list there is (today's `local` and any
    /// key's), so nothing that exists is out of its reach.
    func createUser(name: String, displayName: String, passwordHash: String?, at: Date) async throws -> UserRecord
    func user(named name: String) async throws -> UserRecord?
    func user(id: Int64) async throws -> UserRecord?
    /// Whether any account exists (then the API is never open without a key or a session).
    func hasAccounts() async throws -> Bool
    func memberships(ofUser id: Int64) async throws -> [Membership]
    func members(ofList id: String) async throws -> [Membership]
    func setMember(list: String, user: Int64, role: ListRole, at: Date) async throws
    /// Takes a member out of a list: their sessions in it end at once, the keys they made for it are revoked and
    /// their own channels in it removed.
    func removeMember(list: String, user: Int64) async throws -> Bool
}

/// Signing in: sessions and invitations, and forgetting expired ones.
public protocol SessionStore: Sendable {
    func createSession(tokenHash: Data, user: Int64, list: String, csrf: String, at: Date) async throws
    /// The session, its use recorded; `nil` for none, one past its idle or longest lifetime (then forgotten), or
    /// one whose member has left the list.
    func session(tokenHash: Data, at: Date, idle: TimeInterval, longest: TimeInterval) async throws -> SessionRecord?
    func endSession(tokenHash: Data) async throws
    /// Ends every session of a person (sign out everywhere); how many.
    func endSessions(ofUser id: Int64) async throws -> Int
    func createInvitation(tokenHash: Data, list: String, role: ListRole, madeBy: Int64?, at: Date, expiresAt: Date)
        async throws
    /// The list and role of an invitation still usable (unused, unexpired), without using it.
    func invitation(tokenHash: Data, at: Date) async throws -> (list: String, role: ListRole)?
    /// Uses an invitation once: its list and the role the person now has there (the invitation's, or the higher one
    /// they had: an invitation never lowers a role), or `nil` for one unknown, used or expired.
    func useInvitation(tokenHash: Data, user: Int64, at: Date) async throws -> (list: String, role: ListRole)?
    /// Forgets sessions unused since `idleBefore` or made before `madeBefore`, and invitations expired before
    /// `invitationsBefore`; how many.
    func forgetExpired(idleBefore: Date, madeBefore: Date, invitationsBefore: Date) async throws -> Int
}

/// Passkeys (WebAuthn) and their one-time challenges.
public protocol PasskeyStore: Sendable {
    /// Keeps a person's new passkey; `false` when they have `limit` already or the credential is known.
    func addPasskey(_ passkey: PasskeyRecord, limit: Int) async throws -> Bool
    func passkey(credentialID: Data) async throws -> PasskeyRecord?
    func passkeys(ofUser id: Int64) async throws -> [PasskeyRecord]
    /// Records a sign-in with the passkey at `signCount`, only if its counter grew (or both are zero, for an
    /// authenticator without one): `false` when another sign-in got there first with that count.
    func usePasskey(credentialID: Data, signCount: UInt32, at: Date) async throws -> Bool
    func removePasskey(credentialID: Data, user: Int64) async throws -> Bool
    /// Takes a passkey challenge (by its hash) as answered, until `expiresAt`: `false` when it was taken already,
    /// here or on another server of the database. Challenges expired before `now` are forgotten.
    func useChallenge(hash: Data, expiresAt: Date, now: Date) async throws -> Bool
}

/// Each list's audit log.
public protocol AuditStore: Sendable {
    func audit(list: String, actor: String, action: String, detail: String, at: Date) async throws
    /// The list's log, newest first, before `before`.
    func auditLog(list: String, before: Date?, limit: Int) async throws -> [AuditEntry]
    /// Forgets entries older than `olderThan`, and past the newest `keepPerList` of a list; how many.
    func forgetAudit(olderThan: Date, keepPerList: Int) async throws -> Int
}

/// People, sign-in and the audit log, by concern.
public protocol AccountStore: PeopleStore, SessionStore, PasskeyStore, AuditStore {}
