/// The tokens of a `class` attribute value, compared as bytes without copying.
struct ClassList {
    private let value: UnsafePointer<UInt8>

    /// - Parameter value: a NUL-terminated attribute value that outlives this list.
    init(_ value: UnsafePointer<UInt8>) {
        self.value = value
    }

    /// Whether `token` is one of the value's white-space separated tokens.
    func contains(_ token: StaticString) -> Bool {
        let wanted = token.utf8Start
        let wantedCount = token.utf8CodeUnitCount
        var index = 0
        while value[index] != 0 {
            while Self.isSpace(value[index]) { index += 1 }
            let start = index
            while value[index] != 0, !Self.isSpace(value[index]) { index += 1 }
            if index - start == wantedCount, (0..<wantedCount).allSatisfy({ value[start + $0] == wanted[$0] }) {
                return true
            }
        }
        return false
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
