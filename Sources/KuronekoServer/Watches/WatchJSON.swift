import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoStore

/// A watch as the API serves it and the command line prints it, written directly as bytes (keys sorted, the
/// shipment's stored JSON copied in as it is): adding and listing watches is on the hot path of a shop's
/// import, and a generic serializer sorting dictionaries cost more than the database write.
public enum WatchJSON {
    public static func encode(_ watch: Watch, webhookSecret: String? = nil) -> Data {
        var out = Data()
        out.reserveCapacity(256 + (watch.latest?.json.count ?? 0))
        append(&out, #"{"active":"#)
        append(&out, watch.active ? "true" : "false")
        append(&out, #","carrier":"#)
        appendString(&out, watch.carrier?.rawValue)
        append(&out, #","checked_at":"#)
        appendDate(&out, watch.checkedAt)
        append(&out, #","created_at":"#)
        appendDate(&out, watch.createdAt)
        append(&out, #","family":"#)
        appendString(&out, watch.family?.rawValue)
        append(&out, #","stalled_since":"#)
        appendDate(&out, watch.stalledAt)
        append(&out, #","overdue_since":"#)
        appendDate(&out, watch.overdueAt)
        append(&out, #","label":"#)
        appendString(&out, watch.label)
        append(&out, #","missed_delivery":"#)
        appendMissedDelivery(&out, watch)
        append(&out, #","number":"#)
        appendString(&out, watch.number.digits)
        append(&out, #","page_not_understood_since":"#)
        appendDate(&out, watch.pageRefusedAt)
        append(&out, #","planned_day":"#)
        // The day it is planned to come (Shipment.plannedDay): with an out-for-delivery status, what "today" means.
        appendString(&out, watch.latest?.shipment?.plannedDay.map { TrackingColumns.isoDate($0) })
        append(&out, #","record":"#)
        // Kept as the store wrote it (``ParcelRecord/json``, checked before it was stored).
        if let record = watch.recordJSON, (try? JSONSerialization.jsonObject(with: record)) is [String: Any] {
            out.append(record)
        } else {
            append(&out, "null")
        }
        append(&out, #","source":"#)
        // Kept as the server wrote it (JSON of the mail's sender, subject, date and mailbox).
        if let source = watch.source, (try? JSONSerialization.jsonObject(with: source)) is [String: Any] {
            out.append(source)
        } else {
            append(&out, "null")
        }
        append(&out, #","shipment":"#)
        if let json = watch.latest?.json { out.append(json) } else { append(&out, "null") }
        append(&out, #","webhook_ended":"#)
        if let ended = watch.webhookEnded {
            append(&out, #"{"at":"#)
            appendDate(&out, ended.at)
            append(&out, #","reason":"#)
            appendString(&out, ended.reason)
            append(&out, "}")
        } else {
            append(&out, "null")
        }
        if let webhookSecret {
            append(&out, #","webhook_secret":"#)
            appendString(&out, webhookSecret)
        }
        append(&out, #","webhook_url":"#)
        appendString(&out, watch.webhookURL)
        append(&out, "}")
        return out
    }

    /// After a missed delivery, `{"kept_until": "YYYY-MM-DD", "cool": false, "office": {"role", "name", "telephone"}|null}`
    /// (``MissedDelivery``); `null` otherwise. Only a parcel that needs attention or is held is read for it.
    private static func appendMissedDelivery(_ out: inout Data, _ watch: Watch) {
        guard watch.family == .problem || watch.family == .out, let shipment = watch.latest?.shipment,
            let missed = MissedDelivery(shipment)
        else { return append(&out, "null") }
        append(&out, #"{"cool":"#)
        append(&out, missed.cool ? "true" : "false")
        append(&out, #","kept_until":"#)
        appendString(&out, TrackingColumns.isoDate(missed.keptUntil))
        append(&out, #","office":"#)
        if let office = missed.office {
            append(&out, #"{"role":"#)
            appendString(&out, office.role)
            append(&out, #","name":"#)
            appendString(&out, office.name)
            append(&out, #","telephone":"#)
            appendString(&out, office.telephone)
            append(&out, "}")
        } else {
            append(&out, "null")
        }
        append(&out, "}")
    }

    private static func append(_ out: inout Data, _ text: String) {
        var text = text
        text.withUTF8 { out.append($0) }
    }

    private static func appendDate(_ out: inout Data, _ date: Date?) {
        appendString(&out, date.map { JapanDateTime($0).iso8601 })
    }

    /// A JSON string (or `null`): quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func appendString(_ out: inout Data, _ value: String?) {
        guard let value else { return append(&out, "null") }
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(&out, "\\\"")
            case UInt8(ascii: "\\"): append(&out, "\\\\")
            case 0x0A: append(&out, "\\n")
            case 0x0D: append(&out, "\\r")
            case 0x09: append(&out, "\\t")
            case 0..<0x20: append(&out, String(format: "\\u%04x", byte))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
