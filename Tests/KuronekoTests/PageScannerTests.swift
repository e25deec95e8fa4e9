import Testing

@testable import Kuroneko

/// The scanner on hand-made event streams: what libxml2 reports, without libxml2.
@Suite("Page scanner")
struct PageScannerTests {
    private enum Event {
        case start(String?)
        case title
        case text(String)
        case end
    }

    private func scan(_ events: [Event]) -> ScannedPage {
        var scanner = PageScanner()
        for event in events {
            switch event {
            case .start(let classes?):
                classes.withCString { pointer in
                    pointer.withMemoryRebound(to: UInt8.self, capacity: classes.utf8.count + 1) {
                        scanner.startElement(isTitle: false, classes: ClassList($0))
                    }
                }
            case .start(nil): scanner.startElement(isTitle: false, classes: nil)
            case .title: scanner.startElement(isTitle: true, classes: nil)
            case .text(let text):
                var bytes = Array(text.utf8)
                bytes.withUnsafeMutableBufferPointer { scanner.characters(UnsafeBufferPointer($0)) }
            case .end: scanner.endElement()
            }
        }
        return scanner.page
    }

    private func row(_ label: String, _ date: String, _ place: [Event]) -> [Event] {
        [.start("li"), .start("item"), .text(label), .end, .start("date"), .text(date), .end, .start("name")]
            + place + [.end, .end]
    }

    @Test("a block's texts are found by class token, with nested markup flattened and trimmed")
    func blockTexts() {
        let page = scan(
            [.start(nil), .title, .text(" 荷物お問い合わせ "), .end, .start("wrap parts-tracking-invoice-block x")]
                + [
                    .start("tracking-invoice-block-title"), .text("1件目："), .start(nil), .text("3277-5445-9830"), .end,
                    .end,
                ]
                + [.start("tracking-invoice-block-state is-safe-blue"), .start("tracking-invoice-block-state-title")]
                + [.text("配達中"), .end, .end, .start("tracking-invoice-block-state-note"), .text("　"), .end]
                + [.start("tracking-invoice-block-detail"), .start(nil)]
                + row("荷物受付", "10月27日 11:27", [.start(nil), .text("ＺＯＺＯ"), .end, .text("支店")])
                + [.end, .end, .end, .end])
        #expect(page.documentTitle == "荷物お問い合わせ")
        #expect(page.blocks.count == 1)
        let block = page.blocks[0]
        #expect(block.title == "1件目：3277-5445-9830")
        #expect(block.stateTitle == "配達中")
        #expect(block.stateNote == nil)
        #expect(block.history.count == 1)
        #expect(block.history[0].label == "荷物受付")
        #expect(block.history[0].date == "10月27日 11:27")
        #expect(block.history[0].place == "ＺＯＺＯ支店")
    }

    @Test("a .date that is not a sibling of its .item does not belong to the row")
    func siblingsOnly() {
        let page = scan(
            [.start("parts-tracking-invoice-block"), .start("tracking-invoice-block-detail"), .start(nil)]
                + [.start(nil), .start("item"), .text("輸送中"), .end, .end]
                + [.start("date"), .text("10月28日 01:35"), .end]
                + [.end, .end, .end])
        #expect(page.blocks.first?.history.count == 1)
        #expect(page.blocks.first?.history.first?.date == nil)
    }

    @Test("a block inside a block, and a title outside any block, are counted, not read")
    func brokenNesting() {
        let page = scan(
            [.start("parts-tracking-invoice-block"), .start("tracking-invoice-block-title"), .text("1件目：1"), .end]
                + [.start("parts-tracking-invoice-block"), .start("tracking-invoice-block-title"), .text("2件目：2")]
                + [.end, .end, .end, .start("tracking-invoice-block-title"), .text("3件目：3"), .end])
        #expect(page.blocks.count == 1)
        #expect(page.nestedBlockCount == 1)
        #expect(page.titleCount == 3)
        #expect(page.blocks[0].title == "1件目：1")
    }

    @Test("unbalanced end events never underflow")
    func extraEnds() {
        let page = scan([.end, .end, .start("parts-tracking-invoice-block"), .end, .end])
        #expect(page.blocks.count == 1)
    }
}
