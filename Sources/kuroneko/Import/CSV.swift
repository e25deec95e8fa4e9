import Foundation

/// Just enough CSV (RFC 4180): commas, quoted fields with doubled quotes, CRLF or LF.
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    if let following = iterator.next() {
                        if following == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            handle(following)
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else {
                handle(character)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows

        func handle(_ character: Character) {
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.append(character)
            }
        }
    }
}
