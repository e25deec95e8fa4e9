import Foundation
import Kuroneko

/// What an operator's `page_changed` or `page_restored` announcement says, kept in the outbox as JSON.
public struct CarrierPageNotice: OperatorNotice {
    public let carrier: Carrier
    /// `true` for "read again".
    public let restored: Bool
    /// Why the pages are judged changed (the threshold passed, and the parser's reason).
    public let reason: String?
    public let at: Date

    public init(carrier: Carrier, restored: Bool, reason: String?, at: Date) {
        self.carrier = carrier
        self.restored = restored
        self.reason = reason
        self.at = at
    }
}

/// The operator's news as the outbox keeps it: JSON, dates in seconds since 1970.
public protocol OperatorNotice: Codable, Sendable, Hashable {}

extension OperatorNotice {
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// The notice in an outbox entry, or `nil` when the entry holds something else.
    public static func decode(_ data: Data) -> Self? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Self.self, from: data)
    }
}
