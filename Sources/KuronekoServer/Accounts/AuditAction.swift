import Foundation
import Kuroneko
import KuronekoStore

/// What a request that succeeded did to a list, in the audit log's words (pure: the request and its answer in,
/// the entry out): added, removed, edited (which parts), imported, exported, settings, a channel added or
/// removed. `nil` for a request that changed nothing worth a line (a read, a refresh, a refusal).
public enum AuditAction {
    public static func of(
        method: String, path: String, query: [(name: String, value: String)], body: Data, status: Int, answer: Data
    ) -> (action: String, detail: String)? {
        guard (200..<300).contains(status) else { return nil }
        let segments = path.split(separator: "/").map(String.init)
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let answered = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any]
        let route = ([method] + segments.prefix(3).enumerated().map { index, part in
            // The third segment of these paths is a number or an id: matched as a slot.
            index == 2 && !["remove", "import", "from-mail", "from-text", "settings"].contains(part) ? "*" : part
        }).joined(separator: " ")
        let last = segments.last ?? ""
        switch route {
        case "POST v1 watches":
            if let number = json?["number"] as? String { return ("added", number) }
            let items = (try? JSONSerialization.jsonObject(with: body)) as? [Any]
            return ("added", "\(items?.count ?? 0) parcels")
        case "DELETE v1 watches *":
            return ("removed", last)
        case "POST v1 watches remove":
            // The numbers removed: those asked for but the ones not watched, or the finished ones the answer names.
            let count = answered?["removed"] as? Int ?? 0
            if let named = answered?["removed_numbers"] as? [String] {
                return ("removed", AuditDetail.numbers(named, total: count, what: "finished parcels"))
            }
            let notWatched = Set((answered?["not_watched"] as? [String]) ?? [])
            let asked = ((json?["numbers"] as? [Any]) ?? []).compactMap { ($0 as? String).flatMap { try? TrackingNumber(parsing: $0) }?.digits }
            return ("removed", AuditDetail.numbers(asked.filter { !notWatched.contains($0) }))
        case "PATCH v1 watches *":
            var parts = (json?.keys.sorted() ?? []).filter { $0 != "record" }
            if let record = json?["record"] as? [String: Any] {
                parts += record.keys.sorted().map { key in
                    key == "handled" ? ((record[key] as? Bool) == true ? "handled" : "unhandled") : key
                }
            } else if json?["record"] is NSNull {
                parts.append("record cleared")
            }
            return ("edited", "\(last): \(parts.joined(separator: ", "))")
        case "POST v1 watches import":
            return ("imported", "\(answered?["watched"] as? Int ?? 0) parcels of \(answered?["rows"] as? Int ?? 0) rows")
        case "POST v1 watches from-mail", "POST v1 watches from-text":
            return ("added", last == "from-mail" ? "from a mail" : "from text")
        case "GET v1 watches" where query.contains(where: { $0.name == "format" && $0.value == "csv" }):
            return ("exported", query.filter { $0.name != "format" }.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        case "PUT v1 notices settings":
            return ("settings", "customer notices " + ((json?["enabled"] as? Bool) == true ? "on" : "saved"))
        case "POST v1 channels":
            return ("channel_added", json?["kind"] as? String ?? "")
        case "DELETE v1 channels *":
            return ("channel_removed", last)
        default:
            return nil
        }
    }
}
