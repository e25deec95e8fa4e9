import Foundation
import Kuroneko
import KuronekoStore

/// The home screen: number, label, status, last event, scheduled delivery, last checked. Widths are counted
/// in terminal columns (wide and full-width characters take two), so every row lines up in Japanese and
/// English; given `columns`, the label and last-event cells are cut with `…` until the table fits.
struct WatchTable {
    let language: Language
    let colored: Bool
    var columns: Int? = nil

    /// The columns that give way when the table is too wide: label and last event first, then the forecast,
    /// the check time and the status; none below `narrowest` (the number never gives way).
    private static let flexible = [[1, 3], [4, 5, 2]]
    private static let narrowest = 6

    func text(for watches: [Watch]) -> String {
        let english = language == .english
        let rows = watches.map { watch -> [String] in
            let shipment = watch.latest?.shipment
            var status = shipment.map { english ? ($0.status.labelEnglish ?? $0.status.label) : $0.status.label } ?? "-"
            // The carrier's page was not understood since: what is shown is the last answer read.
            if watch.pageRefusedAt != nil { status += english ? " (page not understood)" : "（ページを読めず）" }
            let last =
                shipment?.events.last.map {
                    ($0.at.map { String($0.iso8601.prefix(16)).replacingOccurrences(of: "T", with: " ") } ?? "-") + " "
                        + ($0.place ?? "")
                } ?? "-"
            return [
                watch.number.formatted, watch.label ?? "-", status, last,
                shipment?.scheduledDelivery?.raw ?? "-",
                watch.checkedAt.map {
                    String(JapanDateTime($0).iso8601.prefix(16)).replacingOccurrences(of: "T", with: " ")
                } ?? "never",
            ]
        }
        let header =
            english
            ? ["NUMBER", "LABEL", "STATUS", "LAST EVENT", "SCHEDULED", "CHECKED"]
            : ["伝票番号", "ラベル", "状態", "最新", "お届け予定", "確認日時"]
        var widths = (0..<header.count).map { column in
            ([header] + rows).map { displayWidth(of: $0[column]) }.max() ?? 0
        }
        if let columns {
            let gaps = 2 * (widths.count - 1)
            for group in Self.flexible {
                while widths.reduce(0, +) + gaps > columns {
                    let shrinkable = group.filter { widths[$0] > Self.narrowest }
                    guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }) else { break }
                    widths[widest] -= 1
                }
            }
        }
        let fitted = ([header] + rows).map { row in
            row.enumerated().map { column, cell in truncated(cell, toColumns: widths[column]) }
        }
        var lines: [String] = []
        for (index, row) in fitted.enumerated() {
            let code = index == 0 ? nil : watches[index - 1].latest?.shipment?.status.code
            lines.append(
                row.enumerated().map { column, cell in
                    let padded = cell + String(repeating: " ", count: max(0, widths[column] - displayWidth(of: cell)))
                    guard column == 2, colored, let code, let color = ShipmentTable.color(for: code) else {
                        return padded
                    }
                    return "\u{1B}[\(color)m\(cell)\u{1B}[0m"
                        + String(repeating: " ", count: max(0, widths[column] - displayWidth(of: cell)))
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n")
    }
}

/// `text` cut to at most `columns` terminal columns, ending in `…` when anything was cut.
func truncated(_ text: String, toColumns columns: Int) -> String {
    guard displayWidth(of: text) > columns else { return text }
    var kept = ""
    var width = 0
    for character in text {
        let next = displayWidth(of: String(character))
        if width + next > columns - 1 { break }
        kept.append(character)
        width += next
    }
    return kept + "…"
}
