/// How ``PageMasking`` masks one attribute's value, by the attribute's name.
enum PageAttribute {
    /// Attributes whose values name the layout (classes, ids, types, table spans): kept when they are plain
    /// ASCII identifiers with no run of four digits or more.
    static let structural: Set<String> = [
        "class", "id", "for", "type", "rel", "lang", "xml:lang", "charset", "http-equiv", "name", "method", "target",
        "align", "valign", "colspan", "rowspan", "width", "height", "border", "cellpadding", "cellspacing", "role",
        "scope", "dir", "enctype", "autocomplete", "tabindex", "media", "async", "defer", "crossorigin", "frameborder",
        "aria-hidden", "aria-label", "aria-labelledby", "aria-describedby", "aria-expanded", "hidden", "disabled",
        "checked", "selected", "readonly", "nowrap", "span", "size", "maxlength", "accept-charset",
    ]
    /// Attributes that hold an address: scheme, host and the path's plain words kept; the query's values, the
    /// fragment and any other scheme's address (`mailto:`, `tel:`) masked.
    static let addresses: Set<String> = ["href", "src", "action", "formaction", "background", "cite", "data", "poster"]

    /// Addresses that say nothing of anyone, kept as written.
    static let safeAddresses: Set<String> = ["javascript:void(0)", "javascript:void(0);", "#", "javascript:;"]

    static func masked(_ value: ArraySlice<Unicode.Scalar>, named name: String, in tag: PageMasking.Tag) -> String {
        let text = String(String.UnicodeScalarView(value))
        if structural.contains(name), isPlainIdentifier(text) { return text }
        if addresses.contains(name) { return safeAddresses.contains(text) ? text : maskedAddress(text) }
        // A <meta http-equiv> names the page's charset in `content`: kept when plain.
        if name == "content", tag.name == "meta", tag.has("http-equiv"), isPlainIdentifier(text) { return text }
        // Any other value (title, alt, value, placeholder, data-*, style, on…): the carriers' words kept, the rest
        // masked.
        var out = String.UnicodeScalarView()
        PageMasking.appendMasked(PageMasking.units(value), keeping: name != "style" && !name.hasPrefix("on"), to: &out)
        return String(out)
    }

    /// ASCII letters, digits and `-_.:;/=, ` only, and no run of four digits or more (a number of anyone's).
    static func isPlainIdentifier(_ text: String) -> Bool {
        var digits = 0
        for scalar in text.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                digits += 1
                if digits >= 4 { return false }
                continue
            }
            digits = 0
            guard scalar.isASCIILetter || "-_.:;/=, ".unicodeScalars.contains(scalar) else { return false }
        }
        return true
    }

    /// `https://host/path/words?name=xxxx#xxxx`: the scheme and host as written, each path segment kept when it is
    /// a plain identifier (else masked), each query name kept when plain and each query value masked.
    static func maskedAddress(_ text: String) -> String {
        let lowered = text.lowercased()
        var rest = Substring(text)
        var out = ""
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("//") {
            let schemeEnd = rest.range(of: "//")!.upperBound
            out += rest[..<schemeEnd]
            rest = rest[schemeEnd...]
            let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let host = String(rest[..<hostEnd])
            out += isPlainIdentifier(host.replacingOccurrences(of: ".", with: "-")) ? host : shape(host)
            rest = rest[hostEnd...]
        } else if let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter && $0.isASCII }) {
            // mailto:, tel:, javascript: … keep only the scheme.
            return String(rest[...colon]) + shape(String(rest[rest.index(after: colon)...]))
        }
        let pathEnd = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let segments = rest[..<pathEnd].split(separator: "/", omittingEmptySubsequences: false)
        out += segments.map { isPlainIdentifier(String($0)) && !$0.contains(" ") ? String($0) : shape(String($0)) }
            .joined(separator: "/")
        rest = rest[pathEnd...]
        if rest.first == "?" {
            out += "?"
            let queryEnd = rest.firstIndex(of: "#") ?? rest.endIndex
            let pairs = rest[rest.index(after: rest.startIndex)..<queryEnd].split(separator: "&", omittingEmptySubsequences: false)
            out += pairs.map { pair -> String in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                let shownName = isPlainIdentifier(name) && !name.contains(" ") ? name : shape(name)
                return parts.count > 1 ? shownName + "=" + shape(String(parts[1])) : shownName
            }.joined(separator: "&")
            rest = rest[queryEnd...]
        }
        // A fragment is masked like a query's value: it may name anything.
        if rest.first == "#" { out += "#" + shape(String(rest.dropFirst())) }
        return out
    }

    /// Every letter and digit replaced by its placeholder (percent escapes too: `%E5` is three characters).
    static func shape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        PageMasking.appendMasked(PageMasking.units(ArraySlice(Array(text.unicodeScalars))), keeping: false, to: &out)
        return String(out)
    }
}
