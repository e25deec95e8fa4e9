import CQRencode

/// A QR code's modules, dark or light, row by row: made by libqrencode (the only owner of its `QRcode`, freed before
/// this returns).
struct QRMatrix: Equatable {
    let size: Int
    /// `size × size`, row by row; `true` is dark.
    let dark: [Bool]

    /// The code for `text` at error correction level M, or `nil` when it cannot be encoded (too long: a QR code
    /// holds at most 2,331 bytes at this level).
    init?(encoding text: String) {
        guard !text.isEmpty, text.utf8.count <= 2_048, !text.utf8.contains(0),
            let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M)
        else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        size = width
        // Bit 0 of each byte: the module is dark.
        dark = (0..<width * width).map { data[$0] & 1 == 1 }
    }

    init(size: Int, dark: [Bool]) {
        self.size = size
        self.dark = dark
    }

    func isDark(_ row: Int, _ column: Int) -> Bool {
        row >= 0 && column >= 0 && row < size && column < size && dark[row * size + column]
    }
}

/// A QR code drawn for a terminal with half blocks, two rows of modules to a line, dark on light whatever the
/// terminal's colours (ANSI black on white), with the quiet zone of 4 light modules a reader needs. Pure.
enum TerminalQRCode {
    static let quietZone = 4

    /// The lines to print, each ending in the colour reset.
    static func lines(_ matrix: QRMatrix) -> [String] {
        let span = -quietZone..<(matrix.size + quietZone)
        var out: [String] = []
        var row = -quietZone
        while row < matrix.size + quietZone {
            var line = "\u{1B}[30;47m"  // black on white
            for column in span {
                switch (matrix.isDark(row, column), matrix.isDark(row + 1, column)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            out.append(line + "\u{1B}[0m")
            row += 2
        }
        return out
    }

    /// The drawing of `text`, or `nil` when it cannot be encoded.
    static func drawing(of text: String) -> String? {
        QRMatrix(encoding: text).map { lines($0).joined(separator: "\n") }
    }
}
