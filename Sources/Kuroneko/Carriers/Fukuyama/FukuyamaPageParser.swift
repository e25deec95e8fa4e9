import Foundation

/// Turns Fukuyama's tracking pages into shipments: the detail page of one number (`tracking_no_hunt`, the
/// whole history) and the list the ten-number form answers (each number's latest state). A pure function of
/// the bytes and a reference time, refusing with a ``TrackingPageError`` any page it does not fully
/// understand. No saved page of Fukuyama's is public: the layout is reconstructed from public scrapers
/// (`../shared/fixtures/fukuyama/FACTS.md`), and what it relies on is the least certain:
///
/// - detail: the current state is the first `strong.redbold` (`配達完了です`, or `該当データはありません。`);
///   `table.tracking_info` holds お問い合わせ番号, 個数, 重量 and お届け予定日/配達完了日; the history is the
///   table whose header ends with 支店電話番号, rows of 状況, 日付, 時刻, 担当店 and its telephone;
/// - list: `table.table01`, one `tr.address_content` per number: お問い合わせ番号, 発送日, 更新日時, 配達状況, 備考;
/// - dates with their year: `2026/12/01` and `16:37`, or `2026/12/01 16:37` in one cell.
public struct FukuyamaPageParser: CarrierPageParser {
    public init() {}

    public func parse(
        _ body: some ContiguousBytes, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        let root = try CarrierPage.tree(of: body, charset: charset, fallback: "Shift_JIS")
        let shipments: [Shipment]
        if let state = root.first(where: { $0.name == "strong" && $0.hasClass("redbold") }),
            root.first(where: { $0.name == "table" && $0.hasClass("tracking_info") }) != nil
                || state.squeezedText == FukuyamaVocabulary.noDataSentence
        {
            shipments = [try Self.detail(root, state: state.squeezedText, asked: numbers?.first)]
        } else if let list = root.first(where: { $0.name == "table" && $0.hasClass("table01") }),
            list.first(where: { $0.name == "tr" && $0.hasClass("address_content") }) != nil
        {
            shipments = try Self.list(list)
        } else {
            try CarrierPage.refuseBlocked(root, carrier: "Fukuyama")
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised Fukuyama page: expected the detail (strong.redbold with table.tracking_info) or the list "
                    + "(table.table01 with tr.address_content), found neither; page title: " + CarrierPage.title(of: root))
        }
        try CarrierPage.checkCount(shipments.count, of: "Fukuyama result", expecting: numbers)
        for (offset, shipment) in shipments.enumerated() {
            try CarrierPage.checkNumber(shipment.trackingNumber, at: offset, expecting: numbers)
        }
        return shipments
    }

    /// The form's per-page token (`data[TrackingNo][formValiNo]`), which the POST of numbers must carry.
    static func formToken(_ body: some ContiguousBytes, charset: String?) throws(TrackingPageError) -> String {
        let root = try CarrierPage.tree(of: body, charset: charset, fallback: "Shift_JIS")
        guard let input = root.first(where: { $0.name == "input" && $0.attributes["name"] == FukuyamaSite.tokenField }),
            let value = input.attributes["value"], !value.isEmpty
        else {
            try CarrierPage.refuseBlocked(root, carrier: "Fukuyama")
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised Fukuyama form: expected the hidden input \(FukuyamaSite.tokenField), found none; page title: "
                    + CarrierPage.title(of: root))
        }
        return value
    }


    private static func detail(_ root: HTMLElement, state: String, asked: TrackingNumber?) throws(TrackingPageError)
        -> Shipment
    {
        var info: [String: String] = [:]
        for row in root.descendants(where: { $0.name == "tr" }) {
            let header = row.elements.first { $0.name == "th" }
            let value = row.elements.first { $0.name == "td" }
            if let header, let value { info[header.squeezedText] = value.squeezedText }
        }
        if state == FukuyamaVocabulary.noDataSentence {
            // The not-found page need not echo the number: it answers the one asked for.
            let echoed = info["お問い合わせ番号"].flatMap { try? TrackingNumber(echoedByPage: $0) }
            guard let number = echoed ?? asked else {
                throw TrackingPageError(.malformedBlock, "Fukuyama's not-found page names no number (お問い合わせ番号)")
            }
            return Shipment(
                trackingNumber: number, carrier: .fukuyama,
                status: ShipmentStatus(
                    code: .notFound, label: state, labelEnglish: "No data for this number", summary: nil, note: nil,
                    isTerminal: false),
                product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        }
        guard let shown = info["お問い合わせ番号"] else {
            throw TrackingPageError(.malformedBlock, "Fukuyama's detail page lacks its お問い合わせ番号 row")
        }
        let number = try Self.number(shown)
        let events = try history(root)
        // A state sentence it does not know says no more than the latest history row.
        let known = FukuyamaVocabulary.meaning(of: state)
        let meaning = known.code == .unknown ? events.last.map { .init(code: $0.code, english: $0.labelEnglish) } ?? known : known
        let planned = info["お届け予定日/配達完了日"].flatMap { raw -> ScheduledDelivery? in
            guard let date = Self.date(raw) else { return nil }
            return ScheduledDelivery(raw: raw, date: date, windowStart: nil, windowEnd: nil)
        }
        let delivered = meaning.code == .delivered ? (events.last { $0.code == .delivered }?.at ?? planned?.date) : nil
        var shipment = Shipment(
            trackingNumber: number, carrier: .fukuyama,
            status: ShipmentStatus(
                code: meaning.code, label: state, labelEnglish: meaning.english, summary: nil,
                note: nil, isTerminal: meaning.code == .delivered),
            product: nil, scheduledDelivery: meaning.code == .delivered ? nil : planned, events: events,
            deliveredAt: delivered)
        let offices = Self.offices(root)
        shipment.offices = offices.isEmpty ? nil : offices
        return shipment
    }

    /// The history: the table whose header row ends with 支店電話番号.
    private static func history(_ root: HTMLElement) throws(TrackingPageError) -> [TrackingEvent] {
        let table = root.descendants { $0.name == "table" }.first { table in
            let headers = table.descendants { $0.name == "th" }.map(\.squeezedText)
            return headers.last == "支店電話番号" && headers.first != "支店コード"
        }
        guard let table else { return [] }
        var events: [TrackingEvent] = []
        for row in table.descendants(where: { $0.name == "tr" }) {
            let cells = row.elements.filter { $0.name == "td" }.map(\.squeezedText)
            if cells.isEmpty { continue }
            guard cells.count == 5 else {
                throw TrackingPageError(
                    .malformedBlock,
                    "Fukuyama's history has a row of \(cells.count) cells; expected 5 (状況, 日付, 時刻, 担当店, 支店電話番号)")
            }
            let meaning = FukuyamaVocabulary.meaning(of: cells[0])
            let when = [cells[1], cells[2]].filter { !$0.isEmpty }.joined(separator: " ")
            events.append(
                TrackingEvent(
                    label: cells[0], labelEnglish: meaning.english, code: meaning.code, at: date(when),
                    dateText: when.isEmpty ? nil : when, place: cells[3].isEmpty ? nil : cells[3]))
        }
        return events
    }

    /// The branch table (支店コード, 支店名, 住所, 支店電話番号): the sending branch, then the delivering one.
    private static func offices(_ root: HTMLElement) -> [CarrierOffice] {
        guard
            let table = root.descendants(where: { $0.name == "table" }).first(where: { table in
                table.descendants { $0.name == "th" }.first?.squeezedText == "支店コード"
            })
        else { return [] }
        let rows = table.descendants { $0.name == "tr" }.map { $0.elements.filter { $0.name == "td" }.map(\.squeezedText) }
            .filter { $0.count == 4 }
        return rows.enumerated().map { offset, cells in
            CarrierOffice(
                role: offset == 0 ? "発送" : "配達", name: cells[1], telephone: cells[3].isEmpty ? nil : cells[3])
        }
    }

    private static func list(_ table: HTMLElement) throws(TrackingPageError) -> [Shipment] {
        var shipments: [Shipment] = []
        for row in table.descendants(where: { $0.name == "tr" && $0.hasClass("address_content") }) {
            let cells = row.elements.filter { $0.name == "td" }.map(\.squeezedText)
            guard cells.count == 5 else {
                throw TrackingPageError(
                    .malformedBlock,
                    "Fukuyama's list has a row of \(cells.count) cells; expected 5 (お問い合わせ番号, 発送日, 更新日時, 配達状況, 備考)")
            }
            let number = try Self.number(cells[0])
            let state = cells[3]
            if state == FukuyamaVocabulary.noDataSentence || state.isEmpty {
                shipments.append(
                    Shipment(
                        trackingNumber: number, carrier: .fukuyama,
                        status: ShipmentStatus(
                            code: .notFound, label: state.isEmpty ? FukuyamaVocabulary.noDataSentence : state,
                            labelEnglish: "No data for this number", summary: nil, note: nil, isTerminal: false),
                        product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil))
                continue
            }
            let meaning = FukuyamaVocabulary.meaning(of: state)
            let at = date(cells[2])
            let event = TrackingEvent(
                label: state, labelEnglish: meaning.english, code: meaning.code, at: at,
                dateText: cells[2].isEmpty ? nil : cells[2], place: nil)
            var shipment = Shipment(
                trackingNumber: number, carrier: .fukuyama,
                status: ShipmentStatus(
                    code: meaning.code, label: state, labelEnglish: meaning.english,
                    summary: cells[4].isEmpty ? nil : cells[4], note: nil, isTerminal: meaning.code == .delivered),
                product: nil, scheduledDelivery: nil, events: [event],
                deliveredAt: meaning.code == .delivered ? at : nil)
            shipment.shipDate = date(cells[1])
            shipments.append(shipment)
        }
        return shipments
    }

    private static func number(_ text: String) throws(TrackingPageError) -> TrackingNumber {
        do {
            return try TrackingNumber(echoedByPage: text)
        } catch {
            throw TrackingPageError(.malformedBlock, "Fukuyama's お問い合わせ番号 is not a number: \(error)")
        }
    }

    /// `2026/12/01`, `2026/12/01 16:37`.
    static func date(_ text: String) -> JapanDateTime? {
        let parts = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard parts.count == 3 || parts.count == 5, parts[0] >= 2000 else { return nil }
        let time = parts.count == 5 ? JapanDateTime.TimeOfDay(hour: parts[3], minute: parts[4]) : nil
        if parts.count == 5, time == nil { return nil }
        return JapanDateTime(year: parts[0], month: parts[1], day: parts[2], time: time)
    }
}

/// What Fukuyama's state words mean: the history's 受付, 発送, 到着, 持出, 配達完了 and the current state's
/// sentence (`配達完了です`); anything else is `unknown`, its words still reported as written. No public source
/// shows its word for a missed delivery.
enum FukuyamaVocabulary {
    typealias Meaning = CarrierWordMeaning

    static let noDataSentence = "該当データはありません。"

    private static let exact: [String: Meaning] = [
        "受付": Meaning(code: .infoReceived, english: "Received"),
        "発送": Meaning(code: .inTransit, english: "Dispatched"),
        "到着": Meaning(code: .inTransit, english: "Arrived at the delivering branch"),
        "持出": Meaning(code: .outForDelivery, english: "Out for delivery"),
        "配達完了": Meaning(code: .delivered, english: "Delivered"),
    ]

    static func meaning(of words: String) -> Meaning {
        var label = words.trimmingCharacters(in: .whitespaces)
        if label.hasSuffix("です") { label.removeLast(2) }
        if label.hasSuffix("中") { label.removeLast() }
        return exact[label] ?? Meaning(code: .unknown, english: nil)
    }

    /// The page's fixed words, kept when a page is masked.
    static let pageWords = [
        "お荷物配達状況詳細", "お問い合わせ番号", "個数", "重量", "現在の配達状況", "お届け予定日/配達完了日", "状況", "日付", "時刻",
        "担当店", "支店電話番号", "支店コード", "支店名", "住所", "発送日", "更新日時", "配達状況", "備考", "配達完了です",
        noDataSentence, "福山通運",
    ] + exact.keys
}
