import Foundation
import Kuroneko

/// A change to a parcel record, as a request sends it (`"record": {...}` of `POST` and `PATCH
/// /v1/watches`): each part named replaces that part (`null` clears it), the recipient part by part, the
/// parts not named stay. `handled: true` marks the parcel dealt with now, by whoever asks; `false` unmarks it.
/// Applied inside the store's transaction (``apply(to:now:by:)``), so two changes of different parts never
/// undo each other.
public struct ParcelRecordChange: Sendable, Hashable {
    public var reference: String??
    public var recipient: [String: String?] = [:]
    public var clearRecipient = false
    public var shippedOn: String??
    public var note: String??
    public var handled: Bool?
    public var fields: [ParcelRecord.Field]?

    public init() {}

    /// The parts `record` holds, each replacing what is there; the parts it lacks stay as they are (an import's
    /// row, read again or from a newer sheet, never clears a note someone wrote).
    public init(filling record: ParcelRecord) {
        if let reference = record.reference { self.reference = .some(reference) }
        if let recipient = record.recipient {
            let parts: [String: String?] = [
                "name": recipient.name, "telephone": recipient.telephone, "email": recipient.email,
                "postcode": recipient.postcode, "prefecture": recipient.prefecture, "address": recipient.address,
            ]
            self.recipient = parts.filter { $0.value != nil }
        }
        if let shippedOn = record.shippedOn { self.shippedOn = .some(shippedOn) }
        if let note = record.note { self.note = .some(note) }
        if !record.fields.isEmpty { fields = record.fields }
    }

    /// Every part cleared: the record forgotten.
    public static var forgetting: ParcelRecordChange {
        var change = ParcelRecordChange()
        change.reference = .some(nil)
        change.clearRecipient = true
        change.shippedOn = .some(nil)
        change.note = .some(nil)
        change.handled = false
        change.fields = []
        return change
    }

    static let parts = ["fields", "handled", "note", "recipient", "reference", "shipped_on"]
    static let recipientParts = ["address", "email", "name", "postcode", "prefecture", "telephone"]

    /// The change a request's `record` object asks for. - Throws: ``ParcelRecordError`` naming the part.
    public init(json value: Any) throws(ParcelRecordError) {
        guard let object = value as? [String: Any] else {
            throw .invalid("", "is not an object such as {\"reference\": \"A-1001\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.parts.contains($0) }) {
            throw .invalid(
                String(unknown.prefix(40)), "is not a part of a record; the parts are " + Self.parts.joined(separator: ", "))
        }
        func text(_ value: Any, _ name: String) throws(ParcelRecordError) -> String? {
            if value is NSNull { return nil }
            guard let text = value as? String else { throw .invalid(name, "is not a string or null") }
            return text
        }
        if let value = object["reference"] { reference = .some(try text(value, "reference")) }
        if let value = object["shipped_on"] { shippedOn = .some(try text(value, "shipped_on")) }
        if let value = object["note"] { note = .some(try text(value, "note")) }
        if let value = object["handled"] {
            // JSON's true and false, not the numbers 1 and 0 (which `as? Bool` would take).
            guard let number = value as? NSNumber, String(cString: number.objCType) == "c", let flag = value as? Bool
            else {
                throw .invalid("handled", "is not true or false")
            }
            handled = flag
        }
        if let value = object["recipient"] {
            if value is NSNull {
                clearRecipient = true
            } else {
                guard let parts = value as? [String: Any] else {
                    throw .invalid("recipient", "is not an object such as {\"name\": \"山田 太郎\"} or null")
                }
                if let unknown = parts.keys.sorted().first(where: { !Self.recipientParts.contains($0) }) {
                    throw .invalid(
                        "recipient.\(unknown.prefix(40))",
                        "is not a part of a recipient; the parts are " + Self.recipientParts.joined(separator: ", "))
                }
                for (name, part) in parts { recipient[name] = .some(try text(part, "recipient.\(name)")) }
            }
        }
        if let value = object["fields"] {
            if value is NSNull {
                fields = []
            } else {
                guard let list = value as? [Any] else {
                    throw .invalid("fields", "is not a list such as [{\"name\": \"品名\", \"value\": \"靴\"}]")
                }
                guard list.count <= ParcelRecordLimits.fields else { throw .tooManyFields(list.count) }
                fields = try list.enumerated().map { (index, item) throws(ParcelRecordError) in
                    guard let pair = item as? [String: Any], pair.count == 2, let name = pair["name"] as? String,
                        let value = pair["value"] as? String
                    else {
                        throw .invalid("fields[\(index)]", "is not {\"name\": text, \"value\": text}")
                    }
                    return ParcelRecord.Field(name: name, value: value)
                }
            }
        }
        // Checked now, so a bad part is refused before anything is written (the store checks the result again).
        _ = try apply(to: nil, now: Date(), by: "-")
    }

    /// The record after this change, checked; `nil` when nothing is left.
    public func apply(to current: ParcelRecord?, now: Date, by actor: String) throws(ParcelRecordError)
        -> ParcelRecord?
    {
        var record = current ?? ParcelRecord()
        if let reference { record.reference = reference }
        if let shippedOn { record.shippedOn = shippedOn }
        if let note { record.note = note }
        if let fields { record.fields = fields }
        if clearRecipient { record.recipient = nil }
        if !recipient.isEmpty {
            var changed = record.recipient ?? ParcelRecord.Recipient()
            for (name, value) in recipient {
                switch name {
                case "name": changed.name = value
                case "telephone": changed.telephone = value
                case "email": changed.email = value
                case "postcode": changed.postcode = value
                case "address": changed.address = value
                default: changed.prefecture = value
                }
            }
            record.recipient = changed
        }
        switch handled {
        case true?:
            if record.handled == nil { record.handled = .init(at: JapanDateTime(now).iso8601, by: actor) }
        case false?: record.handled = nil
        case nil: break
        }
        return try record.validated()
    }
}
