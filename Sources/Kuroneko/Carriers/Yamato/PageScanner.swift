/// Collects a result page's parcel blocks from a stream of element and text events, selecting by class token
/// only (never by tag name or position).
///
/// The events are what an HTML parser reports: balanced element starts and ends, and text. Only the texts
/// the parser needs are kept, so no document tree is ever built.
struct PageScanner {
    private(set) var page = ScannedPage()

    /// A text being collected: which field, and the depth of the element it belongs to.
    private enum Field {
        case documentTitle, blockTitle, stateTitle, stateSummary, stateNote
        case summaryName, summaryValue, rowLabel, rowDate, rowPlace, button
    }

    private var capture: (field: Field, depth: Int)?
    private var text: [UInt8] = []
    /// Serial numbers of the open elements, outermost first: siblings are told apart by their parent's number.
    private var openElements: [Int] = []
    private var nextSerial = 0
    private var blockDepth: Int?
    private var summaryDepth: Int?
    private var detailDepth: Int?
    private var seenSummary = false
    private var seenDetail = false
    /// The parent of the latest `.item`, whose `.date`/`.name` or `.data` siblings belong with it.
    private var itemParent: Int?
    /// The address of the block button whose text is being collected.
    private var buttonLink: String?

    private var depth: Int { openElements.count }
    private var parent: Int? { openElements.dropLast().last }

    /// An element starts.
    /// - Parameters:
    ///   - isTitle: whether it is a `<title>` element.
    ///   - classes: its `class` attribute, if it has one.
    ///   - link: its `href` attribute, made only when asked for.
    mutating func startElement(isTitle: Bool, classes: ClassList?, link: () -> String? = { nil }) {
        nextSerial += 1
        openElements.append(nextSerial)
        guard capture == nil else { return }
        if isTitle, page.documentTitle == nil, blockDepth == nil {
            return startCapture(.documentTitle)
        }
        guard let classes else { return }
        if classes.contains("parts-tracking-invoice-block") {
            return startBlock()
        }
        if classes.contains("tracking-invoice-block-title") {
            page.titleCount += 1
            if blockDepth != nil, currentBlock.title == nil { startCapture(.blockTitle) }
            return
        }
        guard blockDepth != nil else { return }
        if classes.contains("tracking-invoice-block-state-title") {
            if currentBlock.stateTitle == nil { startCapture(.stateTitle) }
        } else if classes.contains("tracking-invoice-block-state-summary") {
            if currentBlock.stateSummary == nil { startCapture(.stateSummary) }
        } else if classes.contains("tracking-invoice-block-state-note") {
            if currentBlock.stateNote == nil { startCapture(.stateNote) }
        } else if classes.contains("tracking-invoice-block-summary") {
            if !seenSummary, detailDepth == nil {
                seenSummary = true
                summaryDepth = depth
            }
        } else if classes.contains("tracking-invoice-block-detail") {
            if !seenDetail, summaryDepth == nil {
                seenDetail = true
                detailDepth = depth
            }
        } else if classes.contains("btn"), summaryDepth == nil, detailDepth == nil,
            currentBlock.changeDeliveryLink == nil, let address = link()
        {
            buttonLink = address
            startCapture(.button)
        } else if detailDepth != nil {
            startHistoryPart(classes)
        } else if summaryDepth != nil {
            startSummaryPart(classes)
        }
    }

    /// Text inside the current element.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        if capture != nil { text.append(contentsOf: bytes) }
    }

    /// The innermost open element ends.
    mutating func endElement() {
        guard !openElements.isEmpty else { return }
        if let capture, capture.depth == depth { finishCapture(capture.field) }
        if depth == detailDepth { detailDepth = nil }
        if depth == summaryDepth { summaryDepth = nil }
        if depth == blockDepth { blockDepth = nil }
        openElements.removeLast()
    }

    private var currentBlock: ScannedBlock {
        get { page.blocks[page.blocks.count - 1] }
        set { page.blocks[page.blocks.count - 1] = newValue }
    }

    private mutating func startBlock() {
        guard blockDepth == nil else {
            page.nestedBlockCount += 1
            return
        }
        page.blocks.append(ScannedBlock())
        blockDepth = depth
        seenSummary = false
        seenDetail = false
        itemParent = nil
    }

    private mutating func startHistoryPart(_ classes: ClassList) {
        if classes.contains("item") {
            currentBlock.history.append(ScannedRow())
            itemParent = parent
            startCapture(.rowLabel)
        } else if let row = currentBlock.history.last, parent == itemParent {
            if classes.contains("date"), row.date == nil {
                startCapture(.rowDate)
            } else if classes.contains("name"), row.place == nil {
                startCapture(.rowPlace)
            }
        }
    }

    private mutating func startSummaryPart(_ classes: ClassList) {
        if classes.contains("item") {
            currentBlock.summary.append((name: "", value: nil))
            itemParent = parent
            startCapture(.summaryName)
        } else if classes.contains("data"), parent == itemParent, currentBlock.summary.last?.value == nil {
            startCapture(.summaryValue)
        }
    }

    /// No-break and the other Unicode spaces (`&nbsp;`, thin, en and em spaces) read as a plain space; the
    /// ideographic space U+3000, which the page itself writes between a date and its window, is kept.
    static func plainSpaces(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isOddSpace) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isOddSpace($0) ? " " : $0 }))
    }

    private static func isOddSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.value != 0x3000 && scalar.properties.generalCategory == .spaceSeparator
    }

    private mutating func startCapture(_ field: Field) {
        capture = (field, depth)
        text.removeAll(keepingCapacity: true)
    }

    private mutating func finishCapture(_ field: Field) {
        capture = nil
        let value = Self.plainSpaces(String(decoding: text, as: UTF8.self)).trimmingWhitespace()
        let nonEmpty = value.isEmpty ? nil : value
        switch field {
        case .documentTitle: page.documentTitle = value
        case .blockTitle: currentBlock.title = value
        case .stateTitle: currentBlock.stateTitle = value
        case .stateSummary: currentBlock.stateSummary = nonEmpty
        case .stateNote: currentBlock.stateNote = nonEmpty
        case .summaryName: currentBlock.summary[currentBlock.summary.count - 1].name = value
        case .summaryValue: currentBlock.summary[currentBlock.summary.count - 1].value = value
        case .rowLabel: currentBlock.history[currentBlock.history.count - 1].label = value
        case .rowDate: currentBlock.history[currentBlock.history.count - 1].date = nonEmpty
        case .rowPlace: currentBlock.history[currentBlock.history.count - 1].place = nonEmpty
        case .button:
            // 詳細確認／日時・場所変更: where the recipient changes the day, the time or the place.
            if value.contains("日時・場所変更") { currentBlock.changeDeliveryLink = buttonLink }
            buttonLink = nil
        }
    }
}
