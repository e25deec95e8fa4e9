import CLibXML2

/// Runs libxml2's HTML parser over a page and feeds its element and text events to a ``PageScanner``.
///
/// libxml2 is used in streaming (SAX) mode: it tokenises and balances the markup as a browser would recover
/// it, but no tree is built, which makes reading a page several times cheaper than building its DOM.
/// `HTML_PARSE_RECOVER` matters: without it libxml2 ends a `<script>` at the first `</`, and the print-popup
/// script's strings would spill into the page as stray markup.
final class HTMLEventParser {
    private var scanner = PageScanner()

    private static let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue)

    /// libxml2 needs its global state set up once before parsers run on several threads.
    private static let libraryInitialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Scans a page.
    /// - Parameter charset: the charset the HTTP response declared, or `nil` to use the page's own `<meta>`.
    /// - Throws: ``TrackingPageError`` with code `unreadable` when libxml2 cannot start on the bytes, or
    ///   `unknownCharset` when it does not know the charset.
    static func scan(_ bytes: UnsafeRawBufferPointer, charset: String?) throws(TrackingPageError) -> ScannedPage {
        _ = libraryInitialized
        kuroneko_silence_libxml2_diagnostics()
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
            let context = htmlCreateMemoryParserCtxt(base, Int32(bytes.count))
        else {
            throw TrackingPageError(.unreadable, "the response is not readable as HTML (\(bytes.count) bytes)")
        }
        defer {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            htmlFreeParserCtxt(context)
        }
        if let charset {
            guard let decoder = xmlFindCharEncodingHandler(charset) else {
                throw TrackingPageError(
                    .unknownCharset, "the page's charset \"\(charset)\" is unknown; expected e.g. UTF-8 or Shift_JIS")
            }
            xmlSwitchToEncoding(context, decoder)
        }
        let parser = HTMLEventParser()
        // The parser outlives the parse: it is released only after htmlParseDocument returns.
        withExtendedLifetime(parser) {
            kuroneko_report_events(
                context, Unmanaged.passUnretained(parser).toOpaque(),
                { receiver, name, attributes in
                    HTMLEventParser.from(receiver)?.startElement(name: name, attributes: attributes)
                },
                { receiver, _ in
                    HTMLEventParser.from(receiver)?.scanner.endElement()
                },
                { receiver, text, length in
                    guard let text, length > 0 else { return }
                    HTMLEventParser.from(receiver)?.scanner.characters(
                        UnsafeBufferPointer(start: text, count: Int(length)))
                })
            _ = htmlCtxtUseOptions(context, options)
            // Read undeclared bytes as UTF-8, as a tree-building parse does (libxml2 still falls back to
            // ISO-8859-1 for bytes that are not UTF-8); left alone, a streaming parse assumes ISO-8859-1.
            context.pointee.charset = Int32(XML_CHAR_ENCODING_UTF8.rawValue)
            _ = htmlParseDocument(context)
        }
        return parser.scanner.page
    }

    private static func from(_ receiver: UnsafeMutableRawPointer?) -> HTMLEventParser? {
        receiver.map { Unmanaged<HTMLEventParser>.fromOpaque($0).takeUnretainedValue() }
    }

    private func startElement(name: UnsafePointer<xmlChar>?, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?)
    {
        let isTitle = name.map { xmlStrcasecmp($0, "title") == 0 } ?? false
        var classes: ClassList?
        var link: UnsafePointer<xmlChar>?
        if var attribute = attributes {
            // A NULL-terminated list of name, value pairs; a value may be NULL for a bare attribute.
            while let attributeName = attribute.pointee {
                if let value = attribute.advanced(by: 1).pointee {
                    if xmlStrcasecmp(attributeName, "class") == 0 {
                        classes = ClassList(value)
                    } else if xmlStrcasecmp(attributeName, "href") == 0 {
                        link = value
                    }
                }
                attribute = attribute.advanced(by: 2)
            }
        }
        // The link's text is made only for the few elements the scanner keeps one of (a block's buttons).
        scanner.startElement(isTitle: isTitle, classes: classes, link: { link.map { String(cString: $0) } })
    }
}
