import Foundation

/// CSV (RFC 4180: commas, quoted fields with doubled quotes, CRLF, LF or CR) read as it comes, a piece of text
/// at a time, each row handed on as soon as it ends. Bounded: a row of more than ``maximumRowScalars``
/// characters is not kept (its place is handed on as an oversized row), so no input, however shaped (a flood
/// of line breaks, an endless quoted field), holds more than one row in memory.
public struct CSVStream {
    /// One row as read: its cells, that it was too long to keep, or a run of blank lines (how many), handed on
    /// once for the run so that a sheet of line breaks costs no more than reading them.
    public enum Row {
        case cells([String])
        case oversized
        case blank(Int)
    }

    public static let maximumRowScalars = 65_536

    /// The character between cells: a comma, or a tab for tab-separated text (Amazon's templates).
    public let separator: Unicode.Scalar

    public init(separator: Unicode.Scalar = ",") {
        self.separator = separator
    }

    /// The separator a sheet's text uses, from its first lines: a tab when they have more tabs than commas.
    public static func separator(of text: Substring) -> Unicode.Scalar {
        var (tabs, commas, lines) = (0, 0, 0)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t": tabs += 1
            case ",": commas += 1
            case "\n":
                lines += 1
                if lines >= 10 { return tabs > commas ? "\t" : "," }
            default: continue
            }
        }
        return tabs > commas ? "\t" : ","
    }

    private var row: [String] = []
    private var field = String.UnicodeScalarView()
    private var quoted = false
    /// A quote inside a quoted field: either the end of the quotes or the first of a doubled one.
    private var quoteSeen = false
    private var afterCR = false
    private var size = 0
    private var oversized = false
    private var started = false
    /// Blank lines read since the last row handed on.
    private var blankRun = 0

    /// Reads `text`, calling `emit` for every row it ends.
    public mutating func feed(_ text: String, emit: (Row) throws -> Void) rethrows {
        for scalar in text.unicodeScalars {
            if afterCR {
                afterCR = false
                if scalar == "\n" { continue }
            }
            if quoted {
                if quoteSeen {
                    quoteSeen = false
                    if scalar == "\"" {
                        append(scalar)
                        continue
                    }
                    quoted = false
                    // Falls through: the scalar after the closing quote is read outside the quotes.
                } else if scalar == "\"" {
                    quoteSeen = true
                    continue
                } else {
                    append(scalar)
                    continue
                }
            }
            switch scalar {
            case "\"" where field.isEmpty:
                quoted = true
                started = true
            case separator:
                endField()
            case "\r", "\n":
                afterCR = scalar == "\r"
                try endRow(emit)
            default:
                append(scalar)
            }
        }
    }

    /// Ends the input: the last row, when it has anything.
    public mutating func finish(emit: (Row) throws -> Void) rethrows {
        quoted = false
        quoteSeen = false
        if started || !field.isEmpty || !row.isEmpty || oversized { try endRow(emit) }
        if blankRun > 0 { try emit(.blank(blankRun)) }
        blankRun = 0
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        started = true
        size += 1
        guard size <= Self.maximumRowScalars else {
            oversized = true
            row = []
            field = String.UnicodeScalarView()
            return
        }
        if !oversized { field.append(scalar) }
    }

    private mutating func endField() {
        started = true
        // A separator counts toward the row's size too: a line of commas is as bounded as a line of text.
        size += 1
        if size > Self.maximumRowScalars {
            oversized = true
            row = []
        }
        if !oversized { row.append(String(field)) }
        field = String.UnicodeScalarView()
    }

    private mutating func endRow(_ emit: (Row) throws -> Void) rethrows {
        if !started, field.isEmpty, row.isEmpty, !oversized {
            blankRun += 1
            size = 0
            return
        }
        if blankRun > 0 { try emit(.blank(blankRun)) }
        blankRun = 0
        endField()
        let ended: Row = oversized ? .oversized : .cells(row)
        row = []
        size = 0
        oversized = false
        started = false
        try emit(ended)
    }
}
