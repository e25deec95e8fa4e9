/// HTML's character references as the readers of pages and mail know them: the few named ones carriers' pages
/// and shops' mails use, and the numeric ones (`&#12354;`, `&#x3042;`).
enum CharacterReference {
    /// The character `&name;` stands for (`name` is what lies between `&` and `;`), or `nil`.
    static func scalar(named name: some StringProtocol) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        case "copy": return "©"
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X") { return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
            if name.hasPrefix("#") { return UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) }
            return nil
        }
    }
}
