import Foundation
import Kuroneko

/// A page a carrier answered that was not understood, redacted, to keep as evidence.
public struct NewRefusedPage: Sendable, Hashable {
    public let carrier: Carrier
    /// The parser's code (``TrackingPageError/Code``).
    public let reason: String
    public let message: String
    public let url: String
    public let receivedAt: Date
    public let charset: String?
    /// How many numbers the page was asked for.
    public let numbers: Int
    /// Whether the body is the page with its personal data masked (else it is empty: the page could not be
    /// masked safely, so only what was refused is kept).
    public let redacted: Bool
    public let body: Data

    public init(
        carrier: Carrier, reason: String, message: String, url: String, receivedAt: Date, charset: String?, numbers: Int,
        redacted: Bool, body: Data
    ) {
        self.carrier = carrier
        self.reason = reason
        self.message = message
        self.url = url
        self.receivedAt = receivedAt
        self.charset = charset
        self.numbers = numbers
        self.redacted = redacted
        self.body = body
    }
}

/// A kept refused page; ``body`` is empty in lists.
public struct RefusedPageRecord: Sendable, Hashable {
    public let id: Int64
    public let page: NewRefusedPage
    /// The body's size in bytes (also in lists).
    public let size: Int
}

/// How many refused pages are kept.
public struct RefusedPageLimits: Sendable, Hashable {
    /// At most this many of one carrier within an hour; more are counted but not kept.
    public var perCarrierPerHour: Int
    /// At most this many in all, oldest dropped.
    public var count: Int
    /// At most this many bytes of bodies in all, oldest dropped.
    public var bytes: Int

    public init(perCarrierPerHour: Int = 3, count: Int = 100, bytes: Int = 16 << 20) {
        self.perCarrierPerHour = perCarrierPerHour
        self.count = count
        self.bytes = bytes
    }
}
