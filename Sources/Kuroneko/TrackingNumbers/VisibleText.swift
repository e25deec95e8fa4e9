extension StringProtocol {
    /// The text as one line of an error can show it: control, format (bidi overrides among them) and line or
    /// paragraph separators written `\u{1b}`, so what a person typed or a file held never drives the terminal.
    public var visibleInOneLine: String {
        var shown = ""
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                shown += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}
