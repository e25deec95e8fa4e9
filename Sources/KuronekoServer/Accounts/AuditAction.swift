import Foundation
import Kuroneko
import KuronekoStore

/// The audit entries the routes that change parcels and settings declare (``RouteChange/Audit/entry(_:detail:)``),
/// each with its detail read from what was asked and answered (pure).
public enum AuditAction {
    /// `POST /v1/watches`: the number, or how many parcels.
    public static let added = RouteChange.Audit.entry("added") { done in
        if let number = done.body?["number"] as? String { return number }
        let items = (try? JSONSerialization.jsonObject(with: done.request.body)) as? [Any]
        return "\(items?.count ?? 0) parcels"
    }

    /// `POST /v1/watches/from-mail` and `/from-text`.
    public static let addedFromMail = RouteChange.Audit.entry("added") { _ in "from a mail" }
    public static let addedFromText = RouteChange.Audit.entry("added") { _ in "from text" }

    /// `DELETE /v1/watches/{number}`.
    public static let removed = RouteChange.Audit.entry("removed") { done in done.last }

    /// `POST /v1/watches/remove`: the numbers removed (those asked for but the ones not watched), or the finished
    /// ones the answer names.
    public static let removedMany = RouteChange.Audit.entry("removed") { done in
        let answer = done.answer
        let count = answer?["removed"] as? Int ?? 0
        if let named = answer?["removed_numbers"] as? [String] {
            return AuditDetail.numbers(named, total: count, what: "finished parcels")
        }
        let notWatched = Set((answer?["not_watched"] as? [String]) ?? [])
        let asked = ((done.body?["numbers"] as? [Any]) ?? []).compactMap {
            ($0 as? String).flatMap { try? TrackingNumber(parsing: $0) }?.digits
        }
        return AuditDetail.numbers(asked.filter { !notWatched.contains($0) })
    }

    /// `PATCH /v1/watches/{number}`: which parts were edited.
    public static let edited = RouteChange.Audit.entry("edited") { done in
        let json = done.body
        var parts = (json?.keys.sorted() ?? []).filter { $0 != "record" }
        if let record = json?["record"] as? [String: Any] {
            parts += record.keys.sorted().map { key in
                key == "handled" ? ((record[key] as? Bool) == true ? "handled" : "unhandled") : key
            }
        } else if json?["record"] is NSNull {
            parts.append("record cleared")
        }
        return "\(done.last): \(parts.joined(separator: ", "))"
    }

    /// `POST /v1/watches/import`: parcels watched of rows read.
    public static let imported = RouteChange.Audit.entry("imported") { done in
        "\(done.answer?["watched"] as? Int ?? 0) parcels of \(done.answer?["rows"] as? Int ?? 0) rows"
    }

    /// `GET /v1/watches?format=csv`: the narrowing exported; a JSON read is no line.
    public static let exported = RouteChange.Audit.entry("exported") { done in
        let query = done.request.query
        guard query.contains(where: { $0.name == "format" && $0.value == "csv" }) else { return nil }
        return query.filter { $0.name != "format" }.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// `PUT /v1/notices/settings`.
    public static let noticeSettings = RouteChange.Audit.entry("settings") { done in
        "customer notices " + ((done.body?["enabled"] as? Bool) == true ? "on" : "saved")
    }

    /// `POST /v1/channels` and `DELETE /v1/channels/{id}`.
    public static let channelAdded = RouteChange.Audit.entry("channel_added") { done in
        done.body?["kind"] as? String ?? ""
    }
    public static let channelRemoved = RouteChange.Audit.entry("channel_removed") { done in done.last }
}
