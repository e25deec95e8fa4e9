import Foundation

/// What one shipping mail says: its parcels, each with the evidence it was found by, or that the parcel comes
/// with a carrier that gives no number.
public struct ShippingMail: Sendable {
    public let messageID: String?
    public let subject: String
    /// The sender's address.
    public let from: String?
    public let date: String?
    public let parcels: [FoundParcel]
    /// Who delivers it, when the mail says the shop's own delivery brings it (Amazon itself,
    /// ヨドバシエクストリームサービス便): there is no number to track. `nil` otherwise.
    public let deliveredWithoutNumber: String?
    /// Why the message was not read (too large), or `nil`.
    public let problem: String?
    /// Whether the mail holds more parcels than ``MailLimits/parcels``: only the first that many are in
    /// ``parcels`` (a shipping notice names a few; a mail of hundreds is a list, not a notice).
    public var moreThanLimit = false
}

/// A tracking number found in a mail.
public struct FoundParcel: Sendable, Hashable {
    public let number: TrackingNumber
    /// The carrier the mail names (or its link's, or the sender's); `nil` only when the mail names none.
    public let carrier: Carrier?
    /// The shop that sent it (or, in a carrier's notice, the shop the parcel comes from).
    public let shop: String?
    /// The shop's order number, when the mail gives one.
    public let order: String?
    public let evidence: [MailEvidence]
    /// What was ordered, when the mail names it after a product label (商品名, 品名, ご注文商品).
    public var product: String? = nil
}

/// Why a number was taken.
public enum MailEvidence: String, Sendable, Hashable, Codable, CaseIterable {
    /// A carrier's tracking link carries it.
    case link
    /// A tracking label (お問い合わせ伝票番号, 送り状番号, …) stands before it, on its line or the line above.
    case label
    /// A carrier is named near it.
    case carrierNamed = "carrier_named"
    /// The mail comes from the carrier itself.
    case sender
}

/// Reads shipping mails: bytes in, the parcels out. Pure; never throws. A number is taken only on evidence (a
/// carrier's link, a tracking label, a carrier named near it) and only when its check digit holds (numbers
/// without one, of 10 or 13 digits or 11 that fail 書留's, only by a link or a label); numbers after an order, member, item,
/// telephone or postcode label, and digits joined across separators in any other shape than 4-4-4 or
/// 書留's 3-2-5-1, are never taken.
public enum ShippingMailReader {
    public static func read(_ raw: Data, limits: MailLimits = MailLimits()) -> ShippingMail {
        guard raw.count <= limits.messageBytes else {
            let head = ShippingMessage(Data(raw.prefix(64 << 10)), limits: limits)
            return ShippingMail(
                messageID: head.messageID, subject: head.subject, from: head.from?.address, date: head.date,
                parcels: [], deliveredWithoutNumber: nil,
                problem: "the message is \(raw.count) bytes, more than the \(limits.messageBytes) read", moreThanLimit: false)
        }
        let message = ShippingMessage(raw, limits: limits)
        var sources: [MailSource] = []
        MailSource.collect(message, into: &sources)
        var found = FoundParcels(limit: limits.parcels)
        var more = false
        for source in sources {
            // One more than the limit is looked for, so that a mail past it is known to be.
            for parcel in source.parcels(limit: limits.parcels < .max ? limits.parcels + 1 : .max) where !found.add(parcel) {
                more = true
            }
        }
        let parcels = found.parcels
        let without = parcels.isEmpty ? sources.lazy.compactMap(\.ownDelivery).first : nil
        return ShippingMail(
            messageID: message.messageID, subject: message.subject, from: message.from?.address, date: message.date,
            parcels: parcels, deliveredWithoutNumber: without, problem: nil, moreThanLimit: more)
    }
}
