import Kuroneko

/// The human-readable table `kuroneko track` prints: number, status, latest event, scheduled delivery.
struct ShipmentTable {
    let language: Language
    let colored: Bool
    /// The terminal's width, when known: the place and the forecast are cut with `…` to fit it.
    var columns: Int? = nil

    /// Column widths in terminal columns when rows are printed as they arrive: a number, every status of the
    /// vocabulary (配達完了（宅配ボックス） is 24 columns), a time, and the place in what the terminal has left
    /// (26 without one); every cell is cut to its column, so the columns line up whatever the status.
    var streamingWidths: [Int] {
        let fixed = [14, 24, 16]
        guard let columns else { return fixed + [26] }
        // What is left after the fixed columns, their gaps and a forecast of about 18 columns.
        return fixed + [max(10, columns - fixed.reduce(0, +) - 2 * 4 - 18)]
    }

    private var english: Bool { language == .english }

    private var headerCells: [String] {
        english
            ? ["NUMBER", "STATUS", "LATEST EVENT", "PLACE", "SCHEDULED"]
            : ["伝票番号", "状態", "最新の日時", "場所", "お届け予定"]
    }

    private func cells(for shipment: Shipment) -> [String] {
        let latest = shipment.events.last
        return [
            shipment.trackingNumber.formatted,
            english ? (shipment.status.labelEnglish ?? shipment.status.label) : shipment.status.label,
            latest.map { $0.at.map(Self.display) ?? $0.dateText ?? "-" } ?? "-",
            latest?.place ?? "-",
            shipment.scheduledDelivery.map(Self.display) ?? "-",
        ]
    }

    /// The whole table, columns fitted to every row.
    func text(for shipments: [Shipment]) -> String {
        let rows = shipments.map(cells)
        let widths = (0..<headerCells.count - 1).map { column in
            ([headerCells] + rows).map { displayWidth(of: $0[column]) }.max() ?? 0
        }
        var lines = [header(widths: widths)]
        for (row, shipment) in zip(rows, shipments) {
            lines.append(line(row, widths: widths, statusColor: colored ? Self.color(for: shipment.status.code) : nil))
        }
        return lines.joined(separator: "\n")
    }

    func header(widths: [Int], cut: Bool = false) -> String {
        line(headerCells, widths: widths, statusColor: nil, cut: cut)
    }

    func row(for shipment: Shipment, widths: [Int], cut: Bool = false) -> String {
        line(
            cells(for: shipment), widths: widths, statusColor: colored ? Self.color(for: shipment.status.code) : nil,
            cut: cut)
    }

    /// With `cut`, every cell but the last is cut to its column's width and the last to what the terminal has
    /// left, so no cell pushes the next along.
    private func line(_ cells: [String], widths: [Int], statusColor: String?, cut: Bool = false) -> String {
        var parts: [String] = []
        var used = 0
        for (index, original) in cells.enumerated() {
            let width = index < widths.count ? widths[index] : 0
            var cell = original
            if cut {
                if index < widths.count {
                    cell = truncated(cell, toColumns: width)
                } else if let columns {
                    cell = truncated(cell, toColumns: max(1, columns - used))
                }
                used += width + 2
            }
            let padding = String(repeating: " ", count: max(0, width - displayWidth(of: cell)))
            let isLast = index == cells.count - 1
            let shown = if index == 1, let statusColor { "\u{1B}[\(statusColor)m\(cell)\u{1B}[0m" } else { cell }
            parts.append(isLast ? shown : shown + padding)
        }
        return parts.joined(separator: "  ")
    }

    private static func display(_ time: JapanDateTime) -> String {
        time.iso8601.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: ":00+09:00", with: "")
    }

    private static func display(_ scheduled: ScheduledDelivery) -> String {
        guard let date = scheduled.date else { return scheduled.raw }
        guard let start = scheduled.windowStart, let end = scheduled.windowEnd else { return date.dateText }
        return "\(date.dateText) \(start)-\(end)"
    }

    /// ANSI SGR colours by meaning: green done, cyan on its way to the door, yellow needs attention,
    /// red went wrong.
    static func color(for code: StatusCode) -> String? {
        switch code {
        case .delivered: "32"
        case .outForDelivery: "36"
        case .infoReceived, .inTransit: "34"
        case .availableForPickup, .attemptFailed, .notFound: "33"
        case .exception, .returned, .invalidNumber: "31"
        case .unknown: nil
        }
    }
}

/// Columns a string takes in a terminal: East Asian wide and full-width characters take two.
func displayWidth(of text: String) -> Int {
    text.unicodeScalars.reduce(0) { width, scalar in
        switch scalar.value {
        // Combining marks (the kana voicing marks among them), zero-width spaces and variation selectors.
        case 0x0300...0x036F, 0x200B...0x200F, 0x3099...0x309A, 0xFE00...0xFE0F:
            width
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            width + 2
        default:
            width + 1
        }
    }
}
