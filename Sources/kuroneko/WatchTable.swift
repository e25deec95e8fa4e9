import Foundation
import Kuroneko
import KuronekoStore

/// The home screen: number, label, status, last event, scheduled delivery, last checked.
struct WatchTable {
    let language: OutputOptions.Language
    let colored: Bool

    func text(for watches: [Watch]) -> String {
        let english = language == .english
        let rows = watches.map { watch -> [String] in
            let shipment = watch.latest?.shipment
            let status = shipment.map { english ? ($0.status.labelEnglish ?? $0.status.label) : $0.status.label } ?? "-"
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
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { displayWidth(of: $0[column]) }.max() ?? 0
        }
        var lines: [String] = []
        for (index, row) in ([header] + rows).enumerated() {
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
