/// Reads one `div.parts-tracking-invoice-block` of the result page into a ``Shipment``.
struct ParcelBlockReader {
    let block: HTMLElement
    /// The block's 1-based position on the page, as in its title `2件目：…`.
    let position: Int
    let dates: PageDates

    func shipment() throws(TrackingPageError) -> Shipment {
        let number = try trackingNumber()
        let events = try self.events(of: number)
        let status = try self.status(events: events, number: number)
        let summary = summaryValues()
        let scheduled = summary.scheduledDelivery.map(dates.scheduledDelivery(from:))
        let deliveredAt =
            status.code == .delivered ? events.last(where: { $0.code == .delivered })?.at : nil
        return Shipment(
            trackingNumber: number, status: status, product: summary.product, scheduledDelivery: scheduled,
            events: events, deliveredAt: deliveredAt)
    }

    /// The number from the block title, `1件目：6230-2386-6161`.
    private func trackingNumber() throws(TrackingPageError) -> TrackingNumber {
        guard let title = block.firstDescendant(withClass: "tracking-invoice-block-title")?.text else {
            throw malformed("has no title (.tracking-invoice-block-title)")
        }
        let parts = title.split(maxSplits: 1, whereSeparator: { $0 == "：" || $0 == ":" })
        guard parts.count == 2, parts[0].trimmingWhitespace() == "\(position)件目" else {
            throw malformed("has title \"\(title)\"; expected \"\(position)件目：XXXX-XXXX-XXXX\"")
        }
        do {
            return try TrackingNumber(echoedByPage: String(parts[1]))
        } catch {
            throw malformed("has title \"\(title)\", whose number \(error.explanation)")
        }
    }

    private func status(events: [TrackingEvent], number: TrackingNumber) throws(TrackingPageError)
        -> ShipmentStatus
    {
        guard let label = block.firstDescendant(withClass: "tracking-invoice-block-state-title")?.text,
            !label.isEmpty
        else {
            throw malformed("for \(number) has no state title (.tracking-invoice-block-state-title)")
        }
        let meaning = StatusVocabulary.meaning(of: label)
        let normalizedLabel = StatusVocabulary.normalize(label)
        var code = meaning.code
        let returnStarted = events.contains {
            let eventLabel = StatusVocabulary.normalize($0.label)
            return eventLabel == StatusVocabulary.returnStartedLabel
                || eventLabel == StatusVocabulary.returnCompletedLabel
        }
        // After 返品 every row belongs to the way back, so the latest row no longer describes the parcel.
        if returnStarted, code != .delivered {
            code = .returned
        }
        let returnCompleted =
            normalizedLabel == StatusVocabulary.returnCompletedLabel
            || (code == .returned
                && events.last.map { StatusVocabulary.normalize($0.label) == StatusVocabulary.returnCompletedLabel }
                    == true)
        return ShipmentStatus(
            code: code,
            label: label,
            labelEnglish: meaning.english,
            summary: optionalText(of: "tracking-invoice-block-state-summary"),
            note: optionalText(of: "tracking-invoice-block-state-note"),
            isTerminal: code == .delivered || code == .invalidNumber || returnCompleted)
    }

    private func events(of number: TrackingNumber) throws(TrackingPageError) -> [TrackingEvent] {
        guard let detail = block.firstDescendant(withClass: "tracking-invoice-block-detail") else {
            return []
        }
        // A history row is whatever element holds a `.item` label, beside its `.date` and `.name`.
        let labels = detail.descendants(withClass: "item")
        var events: [TrackingEvent] = []
        events.reserveCapacity(labels.count)
        for (index, item) in labels.enumerated() {
            let label = item.text
            guard !label.isEmpty else {
                throw malformed("for \(number): history row \(index + 1) has an empty label")
            }
            let dateText = item.nextSibling(withClass: "date")?.text.nonEmpty
            var at: JapanDateTime?
            if let dateText {
                guard let parsed = dates.eventTime(from: dateText) else {
                    throw malformed(
                        "for \(number): history row \(index + 1) (\(label)) has date \"\(dateText)\"; "
                            + "expected MM月DD日 HH:MM")
                }
                at = parsed
            }
            let meaning = StatusVocabulary.meaning(of: label)
            events.append(
                TrackingEvent(
                    label: label, labelEnglish: meaning.english, code: meaning.code, at: at, dateText: dateText,
                    place: item.nextSibling(withClass: "name")?.text.nonEmpty))
        }
        return events
    }

    /// The `.item`/`.data` pairs of the block summary, read by their labels rather than their position.
    private func summaryValues() -> (product: String?, scheduledDelivery: String?) {
        guard let summary = block.firstDescendant(withClass: "tracking-invoice-block-summary") else {
            return (nil, nil)
        }
        var product: String?
        var scheduled: String?
        for item in summary.descendants(withClass: "item") {
            let name = item.text
            let value = item.nextSibling(withClass: "data")?.text
            let meaningful = value.flatMap { ["", "-", "－", "ー", "―"].contains($0) ? nil : $0 }
            if name.hasPrefix("商品名") {
                product = meaningful
            } else if name.hasPrefix("お届け予定日時") {
                scheduled = meaningful
            }
        }
        return (product, scheduled)
    }

    private func optionalText(of classToken: StaticString) -> String? {
        block.firstDescendant(withClass: classToken)?.text.nonEmpty
    }

    private func malformed(_ problem: String) -> TrackingPageError {
        TrackingPageError(.malformedBlock, "parcel block \(position) \(problem)")
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
