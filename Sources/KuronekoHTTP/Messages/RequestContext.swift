/// A key for a value the server's own layers attach to a request (who sent it, in which role): declared by the
/// layer that knows the value's type, so the HTTP layer carries it without knowing it.
public protocol RequestContextKey {
    associatedtype Value: Sendable
}

/// What the server's layers learned about a request, typed and kept beside it: never read from the request's
/// headers, so a client cannot claim any of it. Empty until a layer sets something (a cache hit carries nothing).
public struct RequestContext: Sendable {
    /// `nil` until something is set: most requests (every cache hit) carry nothing, and copying a request then
    /// copies no reference.
    private var values: [ObjectIdentifier: any Sendable]?

    public init() {}

    public subscript<Key: RequestContextKey>(_ key: Key.Type) -> Key.Value? {
        get { values?[ObjectIdentifier(key)] as? Key.Value }
        set {
            var all = values ?? [:]
            all[ObjectIdentifier(key)] = newValue
            values = all
        }
    }
}
