import Foundation

/// HTML reduced to the text a person reads, each link's address written after its text (`配送状況 <https://…>`)
/// so that a number carried only in a link is still seen; scripts, styles and comments dropped, block ends made
/// line breaks, character references decoded.
enum MailText {
    static func fromHTML(_ html: String) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(html.unicodeScalars)
        var index = 0
        var skipping: String?
        var href: String?
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<" {
                if scalars[index...].starts(with: "<!--".unicodeScalars) {
                    var end = index + 4
                    while end + 2 < scalars.count,
                        !(scalars[end] == "-" && scalars[end + 1] == "-" && scalars[end + 2] == ">")
                    {
                        end += 1
                    }
                    index = end + 3
                    continue
                }
                let close = scalars[index...].firstIndex(of: ">") ?? scalars.count - 1
                let tag = String(String.UnicodeScalarView(scalars[(index + 1)..<max(index + 1, close)]))
                index = close + 1
                let name = tag.lowercased().prefix { $0.isLetter || $0.isNumber || $0 == "/" }
                if let open = skipping {
                    if name == "/" + open { skipping = nil }
                    continue
                }
                switch name {
                case "script", "style", "head", "title": skipping = String(name)
                case "a": href = attribute("href", in: tag)
                case "/a":
                    if let link = href, !link.isEmpty { out.append(contentsOf: " <\(decodeReferences(link))> ".unicodeScalars) }
                    href = nil
                case "br", "p", "/p", "div", "/div", "tr", "/tr", "li", "/li", "h1", "/h1", "h2", "/h2", "h3", "/h3",
                    "table", "/table", "dt", "dd", "/dd":
                    out.append("\n")
                case "td", "th", "/td", "/th": out.append(" ")
                default: break
                }
                continue
            }
            if skipping == nil { out.append(scalar) }
            index += 1
        }
        return decodeReferences(String(out))
    }

    /// The value of an attribute in a tag's text, quoted or not.
    static func attribute(_ name: String, in tag: String) -> String? {
        let lower = tag.lowercased()
        guard let range = lower.range(of: name + "=") else { return nil }
        let rest = tag[range.upperBound...]
        if let quote = rest.first, quote == "\"" || quote == "'" {
            return rest.dropFirst().split(separator: quote, maxSplits: 1).first.map(String.init) ?? ""
        }
        return rest.split(whereSeparator: { $0 == " " || $0 == ">" }).first.map(String.init)
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`, `&nbsp;`, `&#NNN;` and `&#xHH;` decoded.
    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else {
                out += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var decoded: String?
            switch name {
            case "amp": decoded = "&"
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            case "nbsp": decoded = " "
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if name.hasPrefix("#") {
                    decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let decoded {
                out += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }
}
