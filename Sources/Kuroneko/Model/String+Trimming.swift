extension StringProtocol {
    /// The text without leading and trailing white space, including the ideographic space U+3000.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex, let whole = self as? String {
            return whole
        }
        return String(self[first..<scalars.index(after: last)])
    }
}
