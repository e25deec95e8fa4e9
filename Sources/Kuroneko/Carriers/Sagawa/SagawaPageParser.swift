import Foundation

/// Turns Sagawa's tracking result page (the one-number page and the ten-number form's answer share its
/// layout) into shipments. A pure function of the bytes and a reference time, refusing with a
/// ``TrackingPageError`` any page it does not fully understand.
///
/// What the parser relies on, each the least certain fact about the page (docs/SCHEMA.md): the index area
/// `.table_okurijo_index` holds one `table.ttl02#listN` per number with the state in `span.state`; each
/// number's detail is `#detailN`, its history a `table.table_okurijo_detail2` headed 荷物状況; history dates
/// are `MM/dd HH:mm` with the year of 出荷日. The page declares Windows-31J and writes Japanese as character
/// references; raw CP932 bytes are decoded too.
public struct SagawaPageParser: Sendable {
    public init() {}

    public func parse(
        _ body: some ContiguousBytes, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        let root = try CarrierPage.tree(of: body, charset: charset)
        guard let index = root.first(where: { $0.hasClass("table_okurijo_index") }) else {
            try CarrierPage.refuseBlocked(root, carrier: "Sagawa")
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised Sagawa page: expected the result list (.table_okurijo_index), found none; page title: "
                    + CarrierPage.title(of: root))
        }
        let lists = index.descendants {
            $0.name == "table" && $0.hasClass("ttl02") && ($0.attributes["id"] ?? "").hasPrefix("list")
        }
        try CarrierPage.checkCount(lists.count, of: "result table (table.ttl02#listN)", expecting: numbers)
        var shipments: [Shipment] = []
        for (offset, list) in lists.enumerated() {
            let position = offset + 1
            let detail = root.first { $0.attributes["id"] == "detail\(position)" }
            let shipment = try shipmentOf(list, detail: detail, position: position, now: now)
            try CarrierPage.checkNumber(shipment.trackingNumber, at: offset, expecting: numbers)
            shipments.append(shipment)
        }
        return shipments
    }

    private func shipmentOf(_ list: HTMLElement, detail: HTMLElement?, position: Int, now: Date)
        throws(TrackingPageError) -> Shipment
    {
        let rows = list.descendants { $0.name == "tr" }
        guard let head = rows.first, let numberCell = head.first(where: { $0.hasClass("number") }),
            let stateCell = head.first(where: { $0.hasClass("state") })
        else {
            throw TrackingPageError(
                .malformedBlock, "Sagawa result \(position) lacks its number (th.number) or state (span.state)")
        }
        let number: TrackingNumber
        do {
            number = try TrackingNumber(echoedByPage: numberCell.squeezedText)
        } catch {
            throw TrackingPageError(.malformedBlock, "Sagawa result \(position): \(error)")
        }
        let label = stateCell.squeezedText
        let body = rows.dropFirst().first?.first { $0.name == "td" }
        let sentence = body.map(Self.sentence(of:)) ?? ""
        let info = body.map(Self.info(of:)) ?? [:]
        let shipDate = detail.flatMap(Self.shipDate(in:))
        let dates = SagawaDates(shipDate: shipDate, now: now)
        let events =
            try detail.map { detail throws(TrackingPageError) in
                try Self.events(in: detail, dates: dates, position: position)
            } ?? []
        var code = SagawaVocabulary.meaning(of: label).code
        var english = SagawaVocabulary.meaning(of: label).english
        if label == SagawaVocabulary.noMatchLabel {
            guard let noMatch = SagawaVocabulary.noMatchCode(sentence: sentence) else {
                throw TrackingPageError(
                    .malformedBlock,
                    "Sagawa result \(position) says 該当なし with a sentence the parser does not know: \"\(sentence)\"")
            }
            guard events.isEmpty else {
                throw TrackingPageError(
                    .contradictoryBlock, "Sagawa result \(position) says 該当なし yet lists \(events.count) history rows")
            }
            code = noMatch
            english = noMatch == .notFound ? "No data registered for this number" : "Check the number"
        }
        let requested = info["再配達希望日時"].flatMap { dates.delivery(from: $0) }
        let scheduled = info["配達予定日"].flatMap { dates.delivery(from: $0) } ?? requested
        let delivered = code == .delivered ? events.last { $0.code == .delivered }?.at : nil
        var shipment = Shipment(
            trackingNumber: number, carrier: .sagawa,
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: english, summary: sentence.isEmpty ? nil : sentence,
                note: nil, isTerminal: code == .delivered || code == .invalidNumber),
            product: nil, scheduledDelivery: scheduled, requestedDelivery: requested, events: events,
            deliveredAt: delivered)
        shipment.shipDate = shipDate
        let offices = detail.map(Self.offices(in:)) ?? []
        shipment.offices = offices.isEmpty ? nil : offices
        return shipment
    }

    /// The state sentence: `p.txt_state`, or the cell's own text when it has no paragraph (該当なし).
    private static func sentence(of cell: HTMLElement) -> String {
        if let paragraph = cell.first(where: { $0.hasClass("txt_state") }) {
            return paragraph.text.filter { !$0.isNewline }.trimmingCharacters(in: .whitespaces)
        }
        let own = cell.children.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
        return own.filter { !$0.isNewline }.trimmingCharacters(in: .whitespaces)
    }

    /// `dl.okurijo_info`: each label (its padding and colon removed) and its value as printed.
    private static func info(of cell: HTMLElement) -> [String: String] {
        var values: [String: String] = [:]
        for list in cell.descendants(where: { $0.name == "dl" && $0.hasClass("okurijo_info") }) {
            var label: String?
            for item in list.elements {
                if item.name == "dt" {
                    label = item.text.filter { !$0.isWhitespace && $0 != "：" && $0 != ":" }
                } else if item.name == "dd", let key = label {
                    values[key] = item.text.trimmingCharacters(in: .whitespacesAndNewlines)
                    label = nil
                }
            }
        }
        return values
    }

    /// 出荷日 (`2026年08月20日`) from the detail's first table.
    private static func shipDate(in detail: HTMLElement) -> JapanDateTime? {
        for row in detail.descendants(where: { $0.name == "tr" }) {
            guard let header = row.elements.first(where: { $0.name == "th" }), header.squeezedText == "出荷日",
                let value = row.elements.first(where: { $0.name == "td" })
            else { continue }
            let numbers = value.squeezedText.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count == 3 else { return nil }
            return JapanDateTime(year: numbers[0], month: numbers[1], day: numbers[2])
        }
        return nil
    }

    /// 集荷・配達に関するお問い合せ (`荒川営業所 TEL:0570-01-0659 FAX:03-…`): the office and its telephone number.
    private static func offices(in detail: HTMLElement) -> [CarrierOffice] {
        var offices: [CarrierOffice] = []
        for row in detail.descendants(where: { $0.name == "tr" }) {
            guard let header = row.elements.first(where: { $0.name == "th" }),
                let value = row.elements.first(where: { $0.name == "td" })
            else { continue }
            let role: String
            switch header.squeezedText {
            case "集荷に関するお問い合せ": role = "集荷"
            case "配達に関するお問い合せ": role = "配達"
            default: continue
            }
            let text = value.squeezedText
            let parts = text.components(separatedBy: "TEL")
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            let telephone = parts.count > 1
                ? parts[1].drop { $0 == ":" || $0 == "：" || $0 == " " }.prefix { $0.isNumber || $0 == "-" } : ""
            offices.append(CarrierOffice(role: role, name: name, telephone: telephone.isEmpty ? nil : String(telephone)))
        }
        return offices
    }

    private static let arrows: Set<Character> = ["↓", "⇒", "↑", "→"]

    private static func events(in detail: HTMLElement, dates: SagawaDates, position: Int) throws(TrackingPageError)
        -> [TrackingEvent]
    {
        let tables = detail.descendants { $0.name == "table" && $0.hasClass("table_okurijo_detail2") }
        guard
            let history = tables.first(where: { table in
                table.descendants { $0.name == "th" }.contains { $0.squeezedText == "荷物状況" }
            })
        else { return [] }
        var events: [TrackingEvent] = []
        for row in history.descendants(where: { $0.name == "tr" }) {
            let cells = row.elements.filter { $0.name == "td" }
            if cells.isEmpty { continue }
            guard cells.count == 3 else {
                throw TrackingPageError(
                    .malformedBlock,
                    "Sagawa history \(position) has a row of \(cells.count) cells; expected 3 (状況, 日時, 営業所)")
            }
            let label = String(cells[0].squeezedText.drop { arrows.contains($0) || $0.isWhitespace })
            let dateText = cells[1].squeezedText
            let meaning = SagawaVocabulary.meaning(of: label)
            let place = cells[2].squeezedText
            events.append(
                TrackingEvent(
                    label: label, labelEnglish: meaning.english, code: meaning.code,
                    at: dates.eventTime(from: dateText),
                    dateText: dateText.isEmpty ? nil : dateText, place: place.isEmpty ? nil : place))
        }
        return events
    }
}

/// Sagawa's year-less dates: the year of 出荷日, plus one for a month and day before it; without a ship
/// date, the latest year that does not put the date more than a day after `now`.
struct SagawaDates {
    let shipDate: JapanDateTime?
    let now: JapanDateTime

    init(shipDate: JapanDateTime?, now: Date) {
        self.shipDate = shipDate
        self.now = JapanDateTime(now)
    }

    /// `08/20 17:13`.
    func eventTime(from text: String) -> JapanDateTime? {
        let parts = text.split(whereSeparator: { $0 == "/" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 4, let time = JapanDateTime.TimeOfDay(hour: parts[2], minute: parts[3]) else {
            return nil
        }
        return date(month: parts[0], day: parts[1], time: time)
    }

    /// `08月21日　18～21時`, `05月25日　午前中`, `12月06日　19時~21時`, `06月16日`.
    func delivery(from raw: String) -> ScheduledDelivery? {
        guard !raw.isEmpty, raw != "―", raw != "-" else { return nil }
        let numbers = raw.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let day = numbers.count >= 2 && raw.contains("月") ? date(month: numbers[0], day: numbers[1], time: nil) : nil
        var start: String?
        var end: String?
        if raw.contains("午前中") {
            (start, end) = ("08:00", "12:00")
        } else if numbers.count >= 4, raw.contains("時"), (0...24).contains(numbers[2]), (0...24).contains(numbers[3]) {
            (start, end) = (Self.hour(numbers[2]), Self.hour(numbers[3]))
        }
        return ScheduledDelivery(raw: raw, date: day, windowStart: start, windowEnd: end)
    }

    private static func hour(_ value: Int) -> String { (value < 10 ? "0" : "") + "\(value):00" }

    private func date(month: Int, day: Int, time: JapanDateTime.TimeOfDay?) -> JapanDateTime? {
        if let shipDate {
            let before = (month, day) < (shipDate.month, shipDate.day)
            return JapanDateTime(year: shipDate.year + (before ? 1 : 0), month: month, day: day, time: time)
        }
        guard let candidate = JapanDateTime(year: now.year, month: month, day: day, time: time) else { return nil }
        if candidate.instant.timeIntervalSince(now.instant) > 86_400 {
            return JapanDateTime(year: now.year - 1, month: month, day: day, time: time)
        }
        return candidate
    }
}
