import Foundation

/// A page a carrier answered that the parser refused: which carrier, why, and the bytes, so that a server can
/// count it, keep it (redacted) as evidence, and tell its operator when a carrier's page has changed.
public struct RefusedPage: Sendable, Hashable {
    public let carrier: Carrier
    public let error: TrackingPageError
    public let endpoint: URL
    /// The body as received (at most the transport's page limit).
    public let body: Data
    /// The charset the answer's `Content-Type` named, if any.
    public let declaredCharset: String?

    public init(carrier: Carrier, error: TrackingPageError, endpoint: URL, body: Data, declaredCharset: String?) {
        self.carrier = carrier
        self.error = error
        self.endpoint = endpoint
        self.body = body
        self.declaredCharset = declaredCharset
    }

    /// Whether the refusal says the page is not laid out as the parser knows it (rather than cut off, empty
    /// or a denial), the sign of a changed page.
    public var meansPageChanged: Bool { error.code.meansPageChanged }
}

extension TrackingPageError.Code {
    /// The codes that say the page's layout is not the one the parser knows: a redesign, not a transport
    /// problem (``truncated``, ``emptyBody``) or a denial (``blocked``).
    public var meansPageChanged: Bool {
        switch self {
        case .unrecognizedLayout, .blockCountMismatch, .numberMismatch, .malformedBlock, .contradictoryBlock,
            .unreadable, .unknownCharset, .plainText:
            true
        default: false
        }
    }
}
