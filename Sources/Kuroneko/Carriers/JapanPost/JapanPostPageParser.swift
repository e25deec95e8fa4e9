import Foundation

/// Turns Japan Post's tracking pages into shipments: the detail page of one number (`direct`: the whole
/// history), and the list page of several (only each number's latest row), in Japanese or English. A pure
/// function of the bytes and a reference time, refusing with a ``TrackingPageError`` any page it does not
/// fully understand.
///
/// What it relies on (docs/SCHEMA.md): tables found by their `summary` (配達状況詳細, 履歴情報, 照会結果);
/// history rows in pairs, the first of five cells (date, label, details, office, prefecture or country);
/// dates with their year (`2026/09/22 14:21` or `09/04/2026 11:43`), abroad in the local time of the
/// country named.
public struct JapanPostPageParser: Sendable {
    public init() {}

    public func parse(
        _ body: some ContiguousBytes, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        let root = try CarrierPage.tree(of: body, charset: charset)
        func table(_ summary: String) -> HTMLElement? {
            root.first { $0.name == "table" && $0.attributes["summary"] == summary }
        }
        let shipments: [Shipment]
        if let details = table("配達状況詳細") {
            shipments = [try detailShipment(details, history: table("履歴情報"), offices: table("窓口店"))]
        } else if let list = table("照会結果") {
            shipments = try listShipments(list)
        } else {
            try CarrierPage.refuseBlocked(root, carrier: "Japan Post")
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised Japan Post page: expected a table summarised 配達状況詳細 or 照会結果, found neither; "
                    + "page title: " + CarrierPage.title(of: root))
        }
        try CarrierPage.checkCount(shipments.count, of: "result", expecting: numbers)
        for (offset, shipment) in shipments.enumerated() {
            try CarrierPage.checkNumber(shipment.trackingNumber, at: offset, expecting: numbers)
        }
        return shipments
    }

    // MARK: The detail page

    /// 窓口店: each row's part (区分), office (取扱局) and telephone number (電話番号).
    private static func offices(in table: HTMLElement) -> [CarrierOffice] {
        table.descendants { $0.name == "tr" }.compactMap { row in
            let cells = row.elements.filter { $0.name == "td" }.map(\.squeezedText)
            guard cells.count == 3, !cells[1].isEmpty else { return nil }
            return CarrierOffice(role: cells[0], name: cells[1], telephone: cells[2].isEmpty ? nil : cells[2])
        }
    }

    private func detailShipment(_ details: HTMLElement, history: HTMLElement?, offices: HTMLElement? = nil)
        throws(TrackingPageError) -> Shipment
    {
        let rows = details.descendants { $0.name == "tr" }
        guard rows.count >= 2 else {
            throw TrackingPageError(.malformedBlock, "Japan Post's 配達状況詳細 table has no value row")
        }
        let headers = rows[0].elements.map(\.squeezedText)
        let values = rows[1].elements.filter { $0.name == "td" }.map(\.squeezedText)
        guard let first = values.first else {
            throw TrackingPageError(.malformedBlock, "Japan Post's 配達状況詳細 table has an empty value row")
        }
        let number = try Self.number(first)
        func value(_ labels: [String]) -> String? {
            guard let index = headers.firstIndex(where: { labels.contains($0) }), index < values.count else {
                return nil
            }
            let text = values[index]
            return text.isEmpty ? nil : text
        }
        let product = value(["商品種別", "Class of goods"])
        let requested = Self.delivery(
            date: value(["配達希望日", "Designated date for delivery"]),
            slot: value(["配達希望時間帯", "Designated time slot"]))
        guard let history else {
            throw TrackingPageError(.malformedBlock, "Japan Post's page for \(number) has no 履歴情報 table")
        }
        let events = try Self.events(history, number: number)
        guard let last = events.last else {
            throw TrackingPageError(.malformedBlock, "Japan Post's history for \(number) has no rows")
        }
        let summary = try Self.lastDetails(history)
        let everReturned = events.contains { $0.code == .returned }
        let lastMeaning = JapanPostVocabulary.meaning(of: last.label)
        var code = last.code
        if everReturned, code != .delivered { code = .returned }
        let delivered = code == .delivered ? events.last { $0.code == .delivered }?.at : nil
        var shipment = Shipment(
            trackingNumber: number, carrier: .japanPost,
            status: ShipmentStatus(
                code: code, label: last.label, labelEnglish: last.labelEnglish, summary: summary, note: nil,
                isTerminal: lastMeaning.isFinal),
            product: product, scheduledDelivery: requested, requestedDelivery: requested, events: events,
            deliveredAt: delivered)
        let offices = offices.map(Self.offices(in:)) ?? []
        shipment.offices = offices.isEmpty ? nil : offices
        return shipment
    }

    /// The history rows: each event a row of five cells (its office's postcode follows in a row of one).
    private static func events(_ history: HTMLElement, number: TrackingNumber) throws(TrackingPageError)
        -> [TrackingEvent]
    {
        var events: [TrackingEvent] = []
        for row in history.descendants(where: { $0.name == "tr" }) {
            let cells = row.elements.filter { $0.name == "td" }
            switch cells.count {
            case 0, 1: continue
            case 5:
                var event = event(date: cells[0], label: cells[1], office: cells[3], region: cells[4])
                let detail = cells[2].squeezedText
                event.detail = detail.isEmpty ? nil : detail
                events.append(event)
            default:
                throw TrackingPageError(
                    .malformedBlock,
                    "Japan Post's history for \(number) has a row of \(cells.count) cells; expected 5 (date, state, "
                        + "details, office, prefecture) or 1 (postcode)")
            }
        }
        return events
    }

    /// The 詳細 cell of the last event, `nil` when empty.
    private static func lastDetails(_ history: HTMLElement) throws(TrackingPageError) -> String? {
        let rows = history.descendants { $0.name == "tr" }.map { $0.elements.filter { $0.name == "td" } }
        guard let last = rows.last(where: { $0.count == 5 }) else { return nil }
        let text = last[2].squeezedText
        return text.isEmpty ? nil : text
    }

    private static func event(date: HTMLElement, label: HTMLElement, office: HTMLElement, region: HTMLElement)
        -> TrackingEvent
    {
        let text = label.squeezedText
        let meaning = JapanPostVocabulary.meaning(of: text)
        let dateText = date.squeezedText
        let place = office.squeezedText
        return TrackingEvent(
            label: text, labelEnglish: meaning.english, code: meaning.code,
            at: time(dateText, region: region.squeezedText), dateText: dateText.isEmpty ? nil : dateText,
            place: place.isEmpty ? nil : place)
    }

    // MARK: The list page (and the not-found answer)

    private func listShipments(_ list: HTMLElement) throws(TrackingPageError) -> [Shipment] {
        var shipments: [Shipment] = []
        for row in list.descendants(where: { $0.name == "tr" }) {
            let cells = row.elements.filter { $0.name == "td" }
            switch cells.count {
            case 0, 1: continue
            case 2:
                let message = cells[1].squeezedText
                guard let code = JapanPostVocabulary.messageCode(message) else {
                    throw TrackingPageError(
                        .malformedBlock, "Japan Post answered a message the parser does not know: \"\(message)\"")
                }
                shipments.append(
                    Shipment(
                        trackingNumber: try Self.number(cells[0].squeezedText), carrier: .japanPost,
                        status: ShipmentStatus(
                            code: code, label: message,
                            labelEnglish: code == .notFound ? "Item not found" : "Wrong number of digits",
                            summary: nil, note: nil, isTerminal: code == .invalidNumber),
                        product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil))
            case 6:
                let number = try Self.number(cells[0].squeezedText)
                let event = Self.event(date: cells[2], label: cells[3], office: cells[4], region: cells[5])
                let meaning = JapanPostVocabulary.meaning(of: event.label)
                let product = cells[1].squeezedText
                shipments.append(
                    Shipment(
                        trackingNumber: number, carrier: .japanPost,
                        status: ShipmentStatus(
                            code: event.code, label: event.label, labelEnglish: event.labelEnglish, summary: nil,
                            note: nil, isTerminal: meaning.isFinal),
                        product: product.isEmpty ? nil : product, scheduledDelivery: nil, events: [event],
                        deliveredAt: event.code == .delivered ? event.at : nil))
            default:
                throw TrackingPageError(
                    .malformedBlock,
                    "Japan Post's result list has a row of \(cells.count) cells; expected 6 (a parcel) or 2 (a message)"
                )
            }
        }
        return shipments
    }

    // MARK: Fields

    private static func number(_ text: String) throws(TrackingPageError) -> TrackingNumber {
        do {
            return try TrackingNumber(echoedByPage: text)
        } catch {
            throw TrackingPageError(.malformedBlock, "Japan Post's number cell: \(error)")
        }
    }

    /// `2026/09/22 14:21`, `09/04/2026 11:43`, or a date alone; abroad, in the zone of the country named.
    static func time(_ text: String, region: String) -> JapanDateTime? {
        let parts = text.split(whereSeparator: { $0 == "/" || $0 == " " || $0 == ":" })
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers.count == 3 || numbers.count == 5 else { return nil }
        let (year, month, day) =
            parts[0].count == 4 ? (numbers[0], numbers[1], numbers[2]) : (numbers[2], numbers[0], numbers[1])
        guard numbers.count == 5 else { return JapanDateTime(year: year, month: month, day: day) }
        guard let time = JapanDateTime.TimeOfDay(hour: numbers[3], minute: numbers[4]),
            let offset = JapanPostZones.offsetMinutes(
                at: region, year: year, month: month, day: day, hour: numbers[3], minute: numbers[4])
        else { return nil }
        return JapanDateTime(year: year, month: month, day: day, time: time, utcOffsetMinutes: offset)
    }

    /// 配達希望日 and 配達希望時間帯: `2026/07/06` and `14時～16時` (or `午前中`, `From 14:00 to 16:00`).
    static func delivery(date: String?, slot: String?) -> ScheduledDelivery? {
        guard let date else { return nil }
        let raw = slot.map { date + " " + $0 } ?? date
        let day = time(date, region: "")
        var start: String?
        var end: String?
        if let slot {
            let hours = slot.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.filter { $0 <= 24 }
            if slot.contains("午前中") {
                (start, end) = ("08:00", "12:00")
            } else if hours.count >= 2 {
                let first = hours[0]
                let second = slot.contains(":") && hours.count >= 3 ? hours[2] : hours[1]
                (start, end) = (String(format: "%02d:00", first), String(format: "%02d:00", second))
            }
        }
        return ScheduledDelivery(raw: raw, date: day, windowStart: start, windowEnd: end)
    }
}
