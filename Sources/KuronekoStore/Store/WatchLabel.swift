/// The one rule for a watch's label, for the API and the command line alike: plain text of at most
/// ``WatchLimits/labelLength`` characters and ``WatchLimits/labelBytes`` UTF-8 bytes (a character may carry
/// any number of combining marks, so characters alone bound nothing), with no control or format-breaking
/// characters (C0, DEL, C1 such as U+0085, line and paragraph separators). Spaces of every kind (NBSP,
/// ideographic space) become a plain space, and the ends are trimmed. An empty label is no label.
public enum WatchLabel {
    /// The label as stored, or `nil` for none. - Throws: ``WatchLabelError`` naming what is wrong.
    public static func validated(_ text: String) throws(WatchLabelError) -> String? {
        if let bad = text.unicodeScalars.first(where: isRefused) {
            throw .controlCharacter(bad.value)
        }
        let spaced = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .spaceSeparator ? " " : $0 }))
        let label = spaced.trimmingSpaces()
        guard label.count <= WatchLimits.labelLength else { throw .tooManyCharacters(label.count) }
        guard label.utf8.count <= WatchLimits.labelBytes else { throw .tooManyBytes(label.utf8.count) }
        return label.isEmpty ? nil : label
    }

    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

/// Why a label is refused: one line naming it.
public enum WatchLabelError: Error, Sendable, Equatable, CustomStringConvertible {
    case controlCharacter(UInt32)
    case tooManyCharacters(Int)
    case tooManyBytes(Int)

    public var description: String {
        switch self {
        case .controlCharacter(let value):
            "label contains a control character (U+\(String(value, radix: 16, uppercase: true).leftPadded(to: 4))); use plain text"
        case .tooManyCharacters(let count):
            "label is \(count) characters long; at most \(WatchLimits.labelLength) are allowed"
        case .tooManyBytes(let count):
            "label is \(count) bytes long in UTF-8; at most \(WatchLimits.labelBytes) are allowed"
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars = scalars.dropFirst() }
        while scalars.last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }

    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
