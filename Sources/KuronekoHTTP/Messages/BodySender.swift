/// Who is sending a request body larger than the anonymous allowance, as far as the request's head tells: asked
/// when the headers are in, before any byte of that body is read (``HTTPApplication/sender(of:)``).
public enum BodySender: Sendable {
    /// A caller the application knows (a valid key, a confirmed session, an API open to everyone): the body counts
    /// against the server's budget of bytes in flight.
    case known
    /// A caller whose credential is not confirmed yet (a session cookie not seen lately): the body counts against
    /// the budget and against the smaller share for such callers, so invented credentials cannot take it all.
    case unconfirmed
    /// Nobody the application knows: a body larger than the allowance is refused with this answer, unread.
    case stranger(HTTPResponse)
}
