import Foundation
import Kuroneko

/// What an operator's `page_changed` or `page_restored` announcement says, kept in the outbox as JSON.
public struct CarrierPageNotice: Codable, Sendable, Hashable {
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

    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    public static func decode(_ data: Data) -> CarrierPageNotice? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(CarrierPageNotice.self, from: data)
    }
}
