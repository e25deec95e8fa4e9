import CLibXML2
import Foundation

/// A page as a small tree of elements and text, read with libxml2's HTML parser (which balances markup as
/// a browser recovers it and decodes character references and the declared charset) and copied into Swift
/// values, so the libxml2 document is freed before any carrier's parser reads it. Sagawa's and Japan Post's
/// pages are read through it; their tables are easier to walk as a tree than as a stream.
final class HTMLElement: Sendable {
    let name: String
    let attributes: [String: String]
    let children: [HTMLNode]

    init(name: String, attributes: [String: String], children: [HTMLNode]) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The element's class tokens.
    var classes: [Substring] { (attributes["class"] ?? "").split(whereSeparator: \.isWhitespace) }

    func hasClass(_ name: String) -> Bool { classes.contains { $0 == name } }

    /// The child elements, in order.
    var elements: [HTMLElement] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// Every element below this one, depth first, in document order.
    func descendants(where predicate: (HTMLElement) -> Bool) -> [HTMLElement] {
        var found: [HTMLElement] = []
        var stack = elements.reversed() as [HTMLElement]
        while let element = stack.popLast() {
            if predicate(element) { found.append(element) }
            stack.append(contentsOf: element.elements.reversed())
        }
        return found
    }

    func first(where predicate: (HTMLElement) -> Bool) -> HTMLElement? {
        var stack = elements.reversed() as [HTMLElement]
        while let element = stack.popLast() {
            if predicate(element) { return element }
            stack.append(contentsOf: element.elements.reversed())
        }
        return nil
    }

    /// All text below, as the page has it.
    var text: String {
        var pieces = ""
        func collect(_ node: HTMLNode) {
            switch node {
            case .text(let text): pieces += text
            case .element(let element):
                if element.name == "br" { pieces += "\n" }
                element.children.forEach(collect)
            }
        }
        children.forEach(collect)
        return pieces
    }

    /// The text with runs of white space (no-break and ideographic spaces included) made one space, trimmed.
    var squeezedText: String { HTMLElement.squeeze(text) }

    static func squeeze(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

enum HTMLNode: Sendable {
    case element(HTMLElement)
    case text(String)
}

enum HTMLTree {
    private static let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOBLANKS.rawValue)

    /// Nesting deeper than this is cut off (libxml2 itself stops at 256 by default): a hostile page cannot
    /// make the copy recurse without end.
    private static let maximumDepth = 256

    /// Reads a page into a tree.
    /// - Parameter charset: the charset the HTTP response declared, or `nil` to use the page's `<meta>`.
    /// - Returns: the root (`html`) element.
    static func parse(_ bytes: UnsafeRawBufferPointer, charset: String?) throws(TrackingPageError) -> HTMLElement {
        _ = libraryInitialized
        kuroneko_silence_libxml2_diagnostics()
        if let charset, xmlFindCharEncodingHandler(charset) == nil {
            throw TrackingPageError(
                .unknownCharset, "the page's charset \"\(charset)\" is unknown; expected e.g. UTF-8 or Windows-31J")
        }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
            let document = htmlReadMemory(base, Int32(bytes.count), nil, charset, options)
        else {
            throw TrackingPageError(.unreadable, "the response is not readable as HTML (\(bytes.count) bytes)")
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document), case .element(let element)? = copy(root, depth: 0) else {
            throw TrackingPageError(.unreadable, "the response is not readable as HTML (no root element)")
        }
        return element
    }

    private static let libraryInitialized: Bool = {
        xmlInitParser()
        return true
    }()

    private static func copy(_ node: xmlNodePtr, depth: Int) -> HTMLNode? {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            guard let content = node.pointee.content else { return nil }
            return .text(String(cString: content))
        case XML_ELEMENT_NODE:
            let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
            if name == "script" || name == "style" { return .element(HTMLElement(name: name, attributes: [:], children: [])) }
            var attributes: [String: String] = [:]
            var attribute = node.pointee.properties
            while let current = attribute {
                if let attributeName = current.pointee.name {
                    let key = String(cString: attributeName).lowercased()
                    if let value = xmlNodeListGetString(node.pointee.doc, current.pointee.children, 1) {
                        attributes[key] = String(cString: value)
                        kuroneko_xml_free(value)
                    } else {
                        attributes[key] = ""
                    }
                }
                attribute = current.pointee.next
            }
            var children: [HTMLNode] = []
            if depth < maximumDepth {
                var child = node.pointee.children
                while let current = child {
                    if let copied = copy(current, depth: depth + 1) { children.append(copied) }
                    child = current.pointee.next
                }
            }
            return .element(HTMLElement(name: name, attributes: attributes, children: children))
        default:
            return nil
        }
    }
}
