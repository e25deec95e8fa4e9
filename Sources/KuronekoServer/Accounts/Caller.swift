import KuronekoHTTP
import KuronekoStore

/// Who a request acts as, once the key middleware or the session gate has let it in: the key's name or the
/// signed-in member, and the role it acts with. Set only by those two, in the request's typed context; a
/// client's headers cannot claim any of it.
public struct Caller: Sendable, Equatable {
    /// How the audit log names a key (`key NAME`); `nil` for a member (named by the gate) or the open API.
    public var key: String?
    /// The signed-in member's user id.
    public var memberID: Int64?
    /// The role: a signed-in member's, or a member's key's; `nil` for a key made on the command line or the open
    /// API (each its own list's admin).
    public var role: ListRole?

    public init(key: String? = nil, memberID: Int64? = nil, role: ListRole? = nil) {
        self.key = key
        self.memberID = memberID
        self.role = role
    }
}

enum CallerKey: RequestContextKey {
    typealias Value = Caller
}

extension HTTPRequest {
    /// Who the request acts as (nobody in particular until a layer says so).
    public var caller: Caller {
        get { context[CallerKey.self] ?? Caller() }
        set { context[CallerKey.self] = newValue }
    }
}
