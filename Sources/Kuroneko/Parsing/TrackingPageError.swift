/// The tracking page could not be turned into shipments: what was expected, and what was found.
public struct TrackingPageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable codes for the kinds of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The body held no bytes (or only white space).
        public static let emptyBody = Code(rawValue: "empty_body")
        /// The body stops before the end of the document.
        public static let truncated = Code(rawValue: "truncated")
        /// Text with no markup at all: a page copied from a browser window, not the page's HTML.
        public static let plainText = Code(rawValue: "plain_text")
        /// libxml2 could not read the bytes as HTML at all.
        public static let unreadable = Code(rawValue: "unreadable")
        /// The charset the page was said to be in is not one libxml2 can decode.
        public static let unknownCharset = Code(rawValue: "unknown_charset")
        /// No parcel blocks: another layout, an error page, or something that is not the tracking page.
        public static let unrecognizedLayout = Code(rawValue: "unrecognized_layout")
        /// A different number of parcel blocks than numbers asked for.
        public static let blockCountMismatch = Code(rawValue: "block_count_mismatch")
        /// A parcel block names a different number than the one asked for at its position.
        public static let numberMismatch = Code(rawValue: "number_mismatch")
        /// A parcel block lacks a part every block has, or holds text in a form the parser does not know.
        public static let malformedBlock = Code(rawValue: "malformed_block")
        /// A parcel block contradicts itself: its state says Yamato does not know the number (伝票番号誤り,
        /// 伝票番号未登録), yet it lists history rows.
        public static let contradictoryBlock = Code(rawValue: "contradictory_block")
        /// The carrier answered a denial or challenge page instead of results.
        public static let blocked = Code(rawValue: "blocked")
    }

    public let code: Code
    /// One line saying what was expected and what was found.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
