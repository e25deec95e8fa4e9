import Testing

@testable import KuronekoServer

/// The set-up link as a QR code for a terminal: libqrencode's modules (the three finder patterns where a reader
/// looks for them), drawn two rows to a line with half blocks inside a quiet zone of 4 light modules, black on white.
@Suite("The set-up link's QR code")
struct TerminalQRCodeTests {
    static let link = "http://192.168.1.10:8080/join#inv_" + String(repeating: "0123456789abcdef", count: 4)

    @Test func findersWhereAReaderLooks() throws {
        let matrix = try #require(QRMatrix(encoding: Self.link))
        #expect((matrix.size - 21) % 4 == 0 && matrix.size >= 21, "a QR code's side is 21 + 4 per version")
        // A finder: a dark 7×7 ring, a light ring inside it, a dark 3×3 centre.
        func finder(at top: Int, _ left: Int) -> Bool {
            (0..<7).allSatisfy { row in
                (0..<7).allSatisfy { column in
                    let ring = max(abs(row - 3), abs(column - 3))
                    return matrix.isDark(top + row, left + column) == (ring != 2)
                }
            }
        }
        #expect(finder(at: 0, 0) && finder(at: 0, matrix.size - 7) && finder(at: matrix.size - 7, 0))
        #expect(!finder(at: matrix.size - 7, matrix.size - 7), "no finder at the fourth corner")
        #expect(QRMatrix(encoding: "") == nil)
        #expect(QRMatrix(encoding: String(repeating: "x", count: 3_000)) == nil, "too long for a code: none, no crash")
    }

    @Test func drawnTwoRowsALine() throws {
        let matrix = QRMatrix(size: 3, dark: [true, false, true, false, true, false, true, true, false])
        let lines = TerminalQRCode.lines(matrix)
        let plain = lines.map { $0.replacingOccurrences(of: "\u{1B}[30;47m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "") }
        // 3 rows and 8 quiet ones: 11 rows, 6 lines; each 3 + 8 columns wide.
        #expect(plain.count == 6 && plain.allSatisfy { $0.count == 11 })
        #expect(plain[0] == String(repeating: " ", count: 11) && plain[1] == plain[0])
        // Rows 0 and 1 of the code: dark over light, light over dark, dark over light.
        #expect(plain[2] == "    ▀▄▀    ")
        // Row 2 over the quiet zone's first row.
        #expect(plain[3] == "    ▀▀     ")
        #expect(lines.allSatisfy { $0.hasPrefix("\u{1B}[30;47m") && $0.hasSuffix("\u{1B}[0m") }, "black on white, then reset")
        let drawing = try #require(TerminalQRCode.drawing(of: Self.link))
        let real = try #require(QRMatrix(encoding: Self.link))
        #expect(drawing.split(separator: "\n").count == (real.size + 8 + 1) / 2)
    }
}
