/// The parcel blocks of a result page, found in one walk, with what is needed to tell a sound page from a
/// broken one.
struct PageOutline {
    /// The outermost `div.parts-tracking-invoice-block` elements, in document order.
    private(set) var blocks: [HTMLElement] = []
    /// Blocks found inside another block: a lost closing tag made libxml2 nest them.
    private(set) var nestedBlockCount = 0
    /// Every `.tracking-invoice-block-title` on the page, inside a block or stranded outside one.
    private(set) var titleCount = 0

    init(of root: HTMLElement) {
        root.walkDescendants { element in
            if element.hasClass("tracking-invoice-block-title") {
                titleCount += 1
                return .skipChildren
            }
            guard element.hasClass("parts-tracking-invoice-block") else { return .descend }
            if element.hasAncestor(withClass: "parts-tracking-invoice-block") {
                nestedBlockCount += 1
            } else {
                blocks.append(element)
            }
            return .descend
        }
    }
}
