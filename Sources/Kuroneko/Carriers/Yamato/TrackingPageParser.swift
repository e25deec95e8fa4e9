import Foundation

/// Turns the HTML of Yamato's tracking result page into shipments.
///
/// A pure function of the bytes and a reference time: no network, no clock. It selects elements by class
/// token only (the real page mixes heading levels) and refuses, with a ``TrackingPageError``, any page it
/// does not fully understand rather than return a partial or empty result.
public struct TrackingPageParser: Sendable {
    public init() {}

    /// Parses a result page.
    /// - Parameters:
    ///   - body: the response body, as received.
    ///   - charset: the charset the HTTP response declared, or `nil` to honour the page's `<meta>`.
    ///   - numbers: the numbers the request asked for, in order; the page must answer exactly these.
    ///     `nil` accepts whatever parcels the page holds (for saved pages).
    ///   - now: the reference time that year-less dates are resolved against.
    /// - Returns: one shipment per parcel block, in page order.
    public func parse(
        _ body: some ContiguousBytes, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil,
        now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        let result: Result<[Shipment], TrackingPageError> = body.withUnsafeBytes { bytes in
            Result { () throws(TrackingPageError) in
                try parse(bytes: bytes, charset: charset, expecting: numbers, now: now)
            }
        }
        return try result.get()
    }

    private func parse(
        bytes: UnsafeRawBufferPointer, charset: String?, expecting numbers: [TrackingNumber]?, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        try CarrierPage.checkComplete(bytes)
        let page = try HTMLEventParser.scan(bytes, charset: charset)
        let blocks = page.blocks
        let expectedCount = numbers?.count
        if blocks.isEmpty {
            let title = page.documentTitle.map { "\"\($0)\"" } ?? "none"
            let wanted =
                expectedCount.map { "\(blockCount($0)) for \($0) number\($0 == 1 ? "" : "s")" }
                ?? "at least one parcel block"
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised page layout: expected \(wanted) (div.parts-tracking-invoice-block), found 0; "
                    + "page title: \(title)" + CarrierPage.olderLayoutNote(bytes))
        }
        // A lost closing tag nests or strands a block; reading on would drop a parcel without a word.
        if page.nestedBlockCount > 0 {
            throw TrackingPageError(
                .malformedBlock,
                "found \(blockCount(page.nestedBlockCount)) inside other blocks: the page's markup is broken")
        }
        if page.titleCount != blocks.count {
            throw TrackingPageError(
                .malformedBlock,
                "found \(page.titleCount) parcel titles (.tracking-invoice-block-title) but "
                    + "\(blockCount(blocks.count)): the page's markup is broken")
        }
        if let expectedCount, blocks.count != expectedCount {
            throw TrackingPageError(
                .blockCountMismatch,
                "expected \(blockCount(expectedCount)) for \(expectedCount) number\(expectedCount == 1 ? "" : "s"), "
                    + "found \(blocks.count)")
        }
        let dates = PageDates(now: now)
        var shipments: [Shipment] = []
        shipments.reserveCapacity(blocks.count)
        for (index, block) in blocks.enumerated() {
            let reader = ParcelBlockReader(block: block, position: index + 1, dates: dates)
            let shipment = try reader.shipment()
            if let numbers, shipment.trackingNumber != numbers[index] {
                throw TrackingPageError(
                    .numberMismatch,
                    "parcel block \(index + 1) is for \(shipment.trackingNumber), "
                        + "but \(numbers[index]) was asked for at that position")
            }
            shipments.append(shipment)
        }
        return shipments
    }

    private func blockCount(_ count: Int) -> String {
        "\(count) parcel block\(count == 1 ? "" : "s")"
    }
}
