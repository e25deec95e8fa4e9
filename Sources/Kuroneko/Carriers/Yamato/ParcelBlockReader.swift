import Foundation

/// Interprets one scanned `div.parts-tracking-invoice-block` as a ``Shipment``.
struct ParcelBlockReader {
    let block: ScannedBlock
    /// The block's 1-based position on the page, as in its title `2件目：…`.
    let position: Int
    let dates: PageDates

    func shipment() throws(TrackingPageError) -> Shipment {
        let number = try trackingNumber()
        let events = try self.events(of: number)
        let status = try self.status(events: events, number: number)
        let scheduled = summaryValue(named: "お届け予定日時").map(dates.scheduledDelivery(from:))
        let requested =
            (summaryValue(named: "お届け希望日時") ?? summaryValue(named: "お届け希望時間"))
            .map(dates.scheduledDelivery(from:))
        let deliveredAt =
            status.code == .delivered ? events.last(where: { $0.code == .delivered })?.at : nil
        var shipment = Shipment(
            trackingNumber: number, status: status, product: summaryValue(named: "商品名"),
            scheduledDelivery: scheduled, requestedDelivery: requested, events: events, deliveredAt: deliveredAt)
        shipment.changeDeliveryURL = block.changeDeliveryLink.flatMap(Self.yamatoPage)
        return shipment
    }

    /// `address` when it is an https page of Yamato's own (a page could link anywhere; a notification must
    /// not send the recipient there).
    static func yamatoPage(_ address: String) -> URL? {
        guard let url = URL(string: address), url.scheme?.lowercased() == "https",
            let host = url.host?.lowercased(),
            host == "kuronekoyamato.co.jp" || host.hasSuffix(".kuronekoyamato.co.jp"),
            url.user == nil, url.password == nil
        else { return nil }
        return url
    }

    /// The number from the block title, `1件目：6230-2386-6161`.
    private func trackingNumber() throws(TrackingPageError) -> TrackingNumber {
        guard let title = block.title else {
            throw malformed("has no title (.tracking-invoice-block-title)")
        }
        let parts = title.split(maxSplits: 1, whereSeparator: { $0 == "：" || $0 == ":" })
        guard parts.count == 2, parts[0].trimmingWhitespace() == "\(position)件目" else {
            throw malformed("has title \"\(title)\"; expected \"\(position)件目：XXXX-XXXX-XXXX\"")
        }
        do {
            return try TrackingNumber(echoedByYamato: String(parts[1]))
        } catch {
            throw malformed("has title \"\(title)\", whose number \(error.explanation)")
        }
    }

    private func status(events: [TrackingEvent], number: TrackingNumber) throws(TrackingPageError)
        -> ShipmentStatus
    {
        guard let label = block.stateTitle, !label.isEmpty else {
            throw malformed("for \(number) has no state title (.tracking-invoice-block-state-title)")
        }
        let meaning = StatusVocabulary.meaning(of: label)
        if meaning.code == .invalidNumber || meaning.code == .notFound, !events.isEmpty {
            let rows = events.count == 1 ? "1 history row" : "\(events.count) history rows"
            throw TrackingPageError(
                .contradictoryBlock,
                "parcel block \(position) for \(number) is contradictory: its state \(label) says Yamato does not "
                    + "know the number, yet it lists \(rows) (first: \(events[0].label))")
        }
        let isReturnLabel = { (label: String) -> Bool in
            let normalized = StatusVocabulary.normalize(label)
            return normalized == StatusVocabulary.returnStartedLabel
                || normalized == StatusVocabulary.returnCompletedLabel
        }
        var code = meaning.code
        // After 返品 every row belongs to the way back, so the latest row no longer describes the parcel.
        if code != .delivered, events.contains(where: { isReturnLabel($0.label) }) {
            code = .returned
        }
        let returnCompleted =
            StatusVocabulary.normalize(label) == StatusVocabulary.returnCompletedLabel
            || (code == .returned
                && events.last.map { StatusVocabulary.normalize($0.label) == StatusVocabulary.returnCompletedLabel }
                    == true)
        return ShipmentStatus(
            code: code,
            label: label,
            labelEnglish: meaning.english,
            summary: block.stateSummary,
            note: block.stateNote,
            isTerminal: code == .delivered || code == .invalidNumber || returnCompleted)
    }

    private func events(of number: TrackingNumber) throws(TrackingPageError) -> [TrackingEvent] {
        var events: [TrackingEvent] = []
        events.reserveCapacity(block.history.count)
        for (index, row) in block.history.enumerated() {
            guard !row.label.isEmpty else {
                throw malformed("for \(number): history row \(index + 1) has an empty label")
            }
            var at: JapanDateTime?
            if let dateText = row.date {
                guard let parsed = dates.eventTime(from: dateText) else {
                    throw malformed(
                        "for \(number): history row \(index + 1) (\(row.label)) has date \"\(dateText)\"; "
                            + "expected MM月DD日 HH:MM")
                }
                at = parsed
            }
            let meaning = StatusVocabulary.meaning(of: row.label)
            events.append(
                TrackingEvent(
                    label: row.label, labelEnglish: meaning.english, code: meaning.code, at: at, dateText: row.date,
                    place: row.place))
        }
        return events
    }

    /// The value of the summary pair whose label starts with `name`; `nil` for `-` or nothing.
    private func summaryValue(named name: String) -> String? {
        guard let pair = block.summary.first(where: { $0.name.hasPrefix(name) }), let value = pair.value,
            !["", "-", "－", "ー", "―"].contains(value)
        else { return nil }
        return value
    }

    private func malformed(_ problem: String) -> TrackingPageError {
        TrackingPageError(.malformedBlock, "parcel block \(position) \(problem)")
    }
}
