/// The raw text of a result page's parcel blocks, as found, before any of it is interpreted.
struct ScannedPage {
    /// The text of the document's `<title>`, for error messages.
    var documentTitle: String?
    /// The outermost `.parts-tracking-invoice-block` elements, in document order.
    var blocks: [ScannedBlock] = []
    /// Blocks found inside another block: a lost closing tag made the parser nest them.
    var nestedBlockCount = 0
    /// Every `.tracking-invoice-block-title` on the page, inside a block or stranded outside one.
    var titleCount = 0
}

/// One parcel block's texts; `nil` where the block has no such element.
struct ScannedBlock {
    var title: String?
    var stateTitle: String?
    var stateSummary: String?
    var stateNote: String?
    /// The `href` of the block's 詳細確認／日時・場所変更 button, as written.
    var changeDeliveryLink: String?
    /// The `.item`/`.data` pairs of `.tracking-invoice-block-summary`, in order.
    var summary: [(name: String, value: String?)] = []
    /// The rows of `.tracking-invoice-block-detail`, oldest first.
    var history: [ScannedRow] = []
}

/// One history row: the `.item` label and its sibling `.date` and `.name`.
struct ScannedRow {
    var label = ""
    var date: String?
    var place: String?
}
