import Foundation
import Kuroneko

/// What a shop or a household knows about a parcel besides its number and label: the shop's order or
/// management number, the recipient, the day it was shipped, a note, whether someone has dealt with it, and
/// the sheet's other columns as they came. Every part is checked by ``validated()`` (plain text, bounded), so
/// whatever is stored is safe to show, search and write back into a sheet.
public struct ParcelRecord: Sendable, Hashable, Codable {
    /// The shop's order or management number (お客様管理番号, 注文番号).
    public var reference: String?
    public var recipient: Recipient?
    /// The day the parcel was shipped, `YYYY-MM-DD`.
    public var shippedOn: String?
    /// Free text; line breaks kept.
    public var note: String?
    /// Marked as dealt with (対応済み), when and by whom.
    public var handled: Handled?
    /// The sheet's other columns, in the sheet's order.
    public var fields: [Field]

    public init(
        reference: String? = nil, recipient: Recipient? = nil, shippedOn: String? = nil, note: String? = nil,
        handled: Handled? = nil, fields: [Field] = []
    ) {
        self.reference = reference
        self.recipient = recipient
        self.shippedOn = shippedOn
        self.note = note
        self.handled = handled
        self.fields = fields
    }

    public struct Recipient: Sendable, Hashable, Codable {
        public var name: String?
        /// As written (hyphens and all); searched by its digits.
        public var telephone: String?
        public var email: String?
        /// `NNN-NNNN`.
        public var postcode: String?
        public var prefecture: String?
        /// The address after the postcode, as the sheet writes it (prefecture, city, street, building).
        public var address: String?

        public init(
            name: String? = nil, telephone: String? = nil, email: String? = nil, postcode: String? = nil,
            prefecture: String? = nil, address: String? = nil
        ) {
            self.name = name
            self.telephone = telephone
            self.email = email
            self.postcode = postcode
            self.prefecture = prefecture
            self.address = address
        }

        var isEmpty: Bool { [name, telephone, email, postcode, prefecture, address].allSatisfy { $0 == nil } }
    }

    public struct Handled: Sendable, Hashable, Codable {
        /// ISO 8601 in Japan's time.
        public var at: String
        public var by: String

        public init(at: String, by: String) {
            self.at = at
            self.by = by
        }
    }

    public struct Field: Sendable, Hashable, Codable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    enum CodingKeys: String, CodingKey {
        case reference, recipient, note, handled, fields
        case shippedOn = "shipped_on"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
        recipient = try container.decodeIfPresent(Recipient.self, forKey: .recipient)
        shippedOn = try container.decodeIfPresent(String.self, forKey: .shippedOn)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        handled = try container.decodeIfPresent(Handled.self, forKey: .handled)
        fields = try container.decodeIfPresent([Field].self, forKey: .fields) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(reference, forKey: .reference)
        try container.encodeIfPresent(recipient, forKey: .recipient)
        try container.encodeIfPresent(shippedOn, forKey: .shippedOn)
        try container.encodeIfPresent(note, forKey: .note)
        try container.encodeIfPresent(handled, forKey: .handled)
        if !fields.isEmpty { try container.encode(fields, forKey: .fields) }
    }

    /// Nothing known: no record at all.
    public var isEmpty: Bool {
        reference == nil && (recipient?.isEmpty ?? true) && shippedOn == nil && note == nil && handled == nil
            && fields.isEmpty
    }

    /// The record as stored and served: JSON with sorted keys, parts not known left out.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// A record as stored; `nil` for none or one that does not decode. Read with JSONSerialization, not
    /// JSONDecoder: a download of 100,000 parcels decodes each record once, and the decoder's machinery was
    /// most of that time.
    public static func decode(_ data: Data?) -> ParcelRecord? {
        guard let data, !data.isEmpty,
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return nil }
        let recipient = (object["recipient"] as? [String: Any]).map { parts in
            Recipient(
                name: parts["name"] as? String, telephone: parts["telephone"] as? String, email: parts["email"] as? String,
                postcode: parts["postcode"] as? String, prefecture: parts["prefecture"] as? String,
                address: parts["address"] as? String)
        }
        let handled = (object["handled"] as? [String: Any]).flatMap { parts -> Handled? in
            guard let at = parts["at"] as? String, let by = parts["by"] as? String else { return nil }
            return Handled(at: at, by: by)
        }
        let fields = (object["fields"] as? [[String: Any]] ?? []).compactMap { pair -> Field? in
            guard let name = pair["name"] as? String, let value = pair["value"] as? String else { return nil }
            return Field(name: name, value: value)
        }
        return ParcelRecord(
            reference: object["reference"] as? String, recipient: recipient, shippedOn: object["shipped_on"] as? String,
            note: object["note"] as? String, handled: handled, fields: fields)
    }

    /// The recipient's telephone as searched: its digits only, full-width made ASCII.
    public var telephoneDigits: String? {
        guard let telephone = recipient?.telephone else { return nil }
        let digits = telephone.precomposedStringWithCompatibilityMapping.filter { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : digits
    }
}

/// The documented bounds of a parcel record.
public enum ParcelRecordLimits {
    public static let referenceLength = 100
    public static let nameLength = 100
    public static let telephoneLength = 30
    public static let emailLength = 254
    public static let prefectureLength = 10
    public static let addressLength = 200
    public static let noteLength = 1_000
    /// The sheet's other columns kept per parcel.
    public static let fields = 30
    public static let fieldNameLength = 60
    public static let fieldValueLength = 300
    /// The whole record as stored, in bytes.
    public static let bytes = 16_384
}
