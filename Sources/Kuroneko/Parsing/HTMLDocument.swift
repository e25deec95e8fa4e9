import CLibXML2

/// A parsed HTML document, owning its libxml2 tree and freeing it on deinit.
///
/// Not `Sendable`: one parse lives and dies inside one call of the page parser.
final class HTMLDocument {
    private let document: htmlDocPtr

    /// libxml2 needs its global state set up once before documents are parsed from several threads.
    private static let libraryInitialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Parses HTML bytes the way a browser would recover from them.
    ///
    /// `HTML_PARSE_RECOVER` matters here: without it libxml2 ends a `<script>` at the first `</` and the
    /// print-popup script's strings spill into the document as stray markup.
    /// - Parameter charset: the charset the HTTP response declared, or `nil` to use the page's own `<meta>`.
    /// - Returns: `nil` when libxml2 cannot build a document at all.
    init?(bytes: UnsafeRawBufferPointer, charset: String?) {
        _ = Self.libraryInitialized
        kuroneko_silence_libxml2_diagnostics()
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count <= Int(Int32.max),
            let parsed = htmlReadMemory(base, Int32(bytes.count), nil, charset, options)
        else { return nil }
        document = parsed
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// The root element, or `nil` for a document without one.
    var root: HTMLElement? {
        xmlDocGetRootElement(document).map(HTMLElement.init)
    }
}

/// An element of an ``HTMLDocument``; valid only while that document is alive.
struct HTMLElement {
    let node: xmlNodePtr

    /// Whether the element's `class` attribute holds `token` as one of its white-space separated tokens.
    func hasClass(_ token: StaticString) -> Bool {
        guard let value = attributeValue(named: "class") else { return false }
        return ClassList(value).contains(token)
    }

    /// The first element in this element's subtree (itself excluded) with the class token, in document order.
    func firstDescendant(withClass token: StaticString) -> HTMLElement? {
        var found: HTMLElement?
        walkDescendants { element in
            guard element.hasClass(token) else { return .descend }
            found = element
            return .stop
        }
        return found
    }

    /// Every element in this subtree (itself excluded) with the class token, in document order;
    /// the subtree of a match is not searched again.
    func descendants(withClass token: StaticString) -> [HTMLElement] {
        var found: [HTMLElement] = []
        walkDescendants { element in
            guard element.hasClass(token) else { return .descend }
            found.append(element)
            return .skipChildren
        }
        return found
    }

    /// Whether an element above this one carries the class token.
    func hasAncestor(withClass token: StaticString) -> Bool {
        var ancestor = node.pointee.parent
        while let current = ancestor, current.pointee.type == XML_ELEMENT_NODE {
            if HTMLElement(node: current).hasClass(token) { return true }
            ancestor = current.pointee.parent
        }
        return false
    }

    /// The nearest following sibling element with the class token.
    func nextSibling(withClass token: StaticString) -> HTMLElement? {
        var sibling = node.pointee.next
        while let current = sibling {
            if current.pointee.type == XML_ELEMENT_NODE, HTMLElement(node: current).hasClass(token) {
                return HTMLElement(node: current)
            }
            sibling = current.pointee.next
        }
        return nil
    }

    /// The element's text: all text in its subtree, joined, with white space trimmed from both ends.
    var text: String {
        // The common case, one text node, needs no buffer.
        if let only = node.pointee.children, only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE,
            let content = only.pointee.content
        {
            let count = Int(xmlStrlen(content))
            return String(decoding: UnsafeBufferPointer(start: content, count: count), as: UTF8.self)
                .trimmingWhitespace()
        }
        var bytes: [UInt8] = []
        collectText(of: node, into: &bytes)
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }

    /// The text of the document's `<title>` in this subtree, for error messages.
    var titleText: String? {
        var found: HTMLElement?
        walkDescendants { element in
            guard let name = element.node.pointee.name, xmlStrcasecmp(name, "title") == 0 else { return .descend }
            found = element
            return .stop
        }
        return found?.text
    }

    enum WalkDecision {
        case descend, skipChildren, stop
    }

    /// Visits the subtree's elements in document order without recursion, so deep documents cannot
    /// exhaust the stack.
    func walkDescendants(_ visit: (HTMLElement) -> WalkDecision) {
        var current = node.pointee.children
        while let candidate = current {
            var descend = false
            if candidate.pointee.type == XML_ELEMENT_NODE {
                switch visit(HTMLElement(node: candidate)) {
                case .stop: return
                case .skipChildren: descend = false
                case .descend: descend = candidate.pointee.children != nil
                }
            }
            if descend, let child = candidate.pointee.children {
                current = child
                continue
            }
            var climbing: xmlNodePtr? = candidate
            current = nil
            while let step = climbing, step != node {
                if let next = step.pointee.next {
                    current = next
                    break
                }
                climbing = step.pointee.parent
            }
        }
    }

    private func attributeValue(named name: StaticString) -> UnsafePointer<xmlChar>? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if let attributeName = current.pointee.name,
                xmlStrEqual(attributeName, name.utf8Start) != 0
            {
                // An attribute's value is its single text child; a valueless attribute has none.
                return UnsafePointer(current.pointee.children?.pointee.content)
            }
            attribute = current.pointee.next
        }
        return nil
    }

    private func collectText(of root: xmlNodePtr, into bytes: inout [UInt8]) {
        var current = root.pointee.children
        while let candidate = current {
            let type = candidate.pointee.type
            if type == XML_TEXT_NODE || type == XML_CDATA_SECTION_NODE, let content = candidate.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            }
            if type == XML_ELEMENT_NODE, let child = candidate.pointee.children {
                current = child
                continue
            }
            var climbing: xmlNodePtr? = candidate
            current = nil
            while let step = climbing, step != root {
                if let next = step.pointee.next {
                    current = next
                    break
                }
                climbing = step.pointee.parent
            }
        }
    }
}

/// The tokens of a `class` attribute, compared as bytes without copying.
private struct ClassList {
    let value: UnsafePointer<xmlChar>

    init(_ value: UnsafePointer<xmlChar>) {
        self.value = value
    }

    func contains(_ token: StaticString) -> Bool {
        let wanted = token.utf8Start
        let wantedCount = token.utf8CodeUnitCount
        var index = 0
        while value[index] != 0 {
            while isSpace(value[index]) { index += 1 }
            let start = index
            while value[index] != 0, !isSpace(value[index]) { index += 1 }
            if index - start == wantedCount, xmlStrncmp(value + start, wanted, Int32(wantedCount)) == 0 {
                return true
            }
        }
        return false
    }

    private func isSpace(_ byte: xmlChar) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
