import Foundation

/// Turns Seino's result page into shipments. A pure function of the bytes and a reference time, refusing
/// with a ``TrackingPageError`` any page it does not fully understand. No saved page of Seino's is public: the
/// layout is reconstructed from public scrapers of 2015–2023 (`../shared/fixtures/seino/FACTS.md`), and what
/// it relies on is the least certain:
///
/// - the summary `table[summary="お届け状況確認 検索"]`, one row per number from its second row: `td.col2` 発送日,
///   `td.col3` お問合せ番号, `td.col4` the state sentence (`配達済みです`, `入力されたお問合せ番号が見当りません`);
/// - one `table[summary="お届物詳細"]` per number, in the summary's order: `td.col1` the step (`受 付`, spaced),
///   `td.col2` the branch (店所), `td.col3` `DD日 HH:MM`, a day without month or year, which is the first such
///   day on or after 発送日 (the latest not after tomorrow without it).
public struct SeinoPageParser: CarrierPageParser {
    public init() {}

    static let summaryName = "お届け状況確認 検索"
    static let detailName = "お届物詳細"

    public func parse(
        _ body: some ContiguousBytes, charset: String? = nil, expecting numbers: [TrackingNumber]? = nil, now: Date
    ) throws(TrackingPageError) -> [Shipment] {
        let root = try CarrierPage.tree(of: body, charset: charset, fallback: "Shift_JIS")
        func tables(_ summary: String) -> [HTMLElement] {
            root.descendants { $0.name == "table" && $0.attributes["summary"] == summary }
        }
        guard let summary = tables(Self.summaryName).first else {
            try CarrierPage.refuseBlocked(root, carrier: "Seino")
            throw TrackingPageError(
                .unrecognizedLayout,
                "unrecognised Seino page: expected the summary table (summary=\"\(Self.summaryName)\"), found none; "
                    + "page title: " + CarrierPage.title(of: root))
        }
        let rows = summary.descendants { $0.name == "tr" }.filter { row in
            row.elements.contains { $0.name == "td" && $0.hasClass("col3") }
        }
        try CarrierPage.checkCount(rows.count, of: "Seino summary row (td.col3)", expecting: numbers)
        let details = tables(Self.detailName)
        guard details.count == rows.count else {
            throw TrackingPageError(
                .blockCountMismatch,
                "Seino's page has \(rows.count) summary rows but \(details.count) detail tables (summary=\"\(Self.detailName)\")")
        }
        let today = JapanDateTime(now)
        var shipments: [Shipment] = []
        for (offset, (row, detail)) in zip(rows, details).enumerated() {
            let shipment = try Self.shipment(row, detail: detail, position: offset + 1, today: today)
            try CarrierPage.checkNumber(shipment.trackingNumber, at: offset, expecting: numbers)
            shipments.append(shipment)
        }
        return shipments
    }


    private static func shipment(_ row: HTMLElement, detail: HTMLElement, position: Int, today: JapanDateTime)
        throws(TrackingPageError) -> Shipment
    {
        func cell(_ name: String) -> String { row.elements.first { $0.hasClass(name) }?.squeezedText ?? "" }
        let number: TrackingNumber
        do {
            number = try TrackingNumber(echoedByPage: cell("col3"))
        } catch {
            throw TrackingPageError(.malformedBlock, "Seino result \(position): お問合せ番号 \(error)")
        }
        let sentence = cell("col4")
        let shipDate = Self.shipDate(cell("col2"))
        var events: [TrackingEvent] = []
        for step in detail.descendants(where: { $0.name == "tr" }) {
            let cells = step.elements.filter { $0.name == "td" }
            if cells.isEmpty { continue }
            guard cells.count == 3 else {
                throw TrackingPageError(
                    .malformedBlock,
                    "Seino detail \(position) has a row of \(cells.count) cells; expected 3 (step, 店所, DD日 HH:MM)")
            }
            let label = cells[0].squeezedText.filter { !$0.isWhitespace }
            let meaning = SeinoVocabulary.meaning(of: label)
            let when = cells[2].squeezedText
            let place = cells[1].squeezedText
            events.append(
                TrackingEvent(
                    label: label, labelEnglish: meaning.english, code: meaning.code,
                    at: Self.eventTime(when, shipDate: shipDate, today: today), dateText: when.isEmpty ? nil : when,
                    place: place.isEmpty ? nil : place))
        }
        let code: StatusCode
        let english: String?
        if let message = SeinoVocabulary.message(sentence) {
            guard events.isEmpty || message.code != .notFound else {
                throw TrackingPageError(
                    .contradictoryBlock, "Seino result \(position) says \"\(sentence)\" yet lists \(events.count) steps")
            }
            (code, english) = (message.code, message.english)
        } else if let last = events.last {
            (code, english) = (last.code, last.labelEnglish)
        } else {
            throw TrackingPageError(
                .malformedBlock, "Seino result \(position) has a state the parser does not know and no steps: \"\(sentence)\"")
        }
        var shipment = Shipment(
            trackingNumber: number, carrier: .seino,
            status: ShipmentStatus(
                code: code, label: sentence.isEmpty ? (events.last?.label ?? "") : sentence, labelEnglish: english,
                summary: nil, note: nil, isTerminal: code == .delivered || code == .invalidNumber),
            product: nil, scheduledDelivery: nil, events: events,
            deliveredAt: code == .delivered ? events.last { $0.code == .delivered }?.at : nil)
        shipment.shipDate = shipDate
        return shipment
    }

    /// 発送日: `2026/12/01` or `2026年12月01日`.
    static func shipDate(_ text: String) -> JapanDateTime? {
        let parts = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard parts.count == 3, parts[0] >= 2000 else { return nil }
        return JapanDateTime(year: parts[0], month: parts[1], day: parts[2])
    }

    /// `03日 14:20`: the first such day on or after the ship date; without one, the latest not after tomorrow.
    static func eventTime(_ text: String, shipDate: JapanDateTime?, today: JapanDateTime) -> JapanDateTime? {
        let parts = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard parts.count == 3, (1...31).contains(parts[0]),
            let time = JapanDateTime.TimeOfDay(hour: parts[1], minute: parts[2])
        else { return nil }
        let day = parts[0]
        var (year, month) = shipDate.map { ($0.year, $0.month) } ?? (today.year, today.month)
        if let shipDate {
            if day < shipDate.day { (year, month) = month == 12 ? (year + 1, 1) : (year, month + 1) }
        } else if day > today.day + 1 {
            (year, month) = month == 1 ? (year - 1, 12) : (year, month - 1)
        }
        return JapanDateTime(year: year, month: month, day: day, time: time)
    }
}

/// What Seino's step labels (their spaces removed) and state sentences mean; anything else is `unknown`, its
/// words still reported as written.
enum SeinoVocabulary {
    typealias Meaning = CarrierWordMeaning

    private static let steps: [String: Meaning] = [
        "受付": Meaning(code: .infoReceived, english: "Received"),
        "発送": Meaning(code: .inTransit, english: "Dispatched"),
        "中継": Meaning(code: .inTransit, english: "Through a relay branch"),
        "到着": Meaning(code: .inTransit, english: "Arrived at the delivering branch"),
        "持出": Meaning(code: .outForDelivery, english: "Out for delivery"),
        "配達": Meaning(code: .delivered, english: "Delivered"),
        "持戻": Meaning(code: .attemptFailed, english: "Brought back"),
    ]

    static func meaning(of label: String) -> Meaning {
        steps[label] ?? Meaning(code: .unknown, english: nil)
    }

    static let delivered = "配達済みです"
    static let notFound = "入力されたお問合せ番号が見当りません"

    /// A state sentence that decides the state by itself: delivered, not found, or a refused number.
    static func message(_ sentence: String) -> Meaning? {
        if sentence.hasPrefix(delivered) { return Meaning(code: .delivered, english: "Delivered") }
        if sentence.contains("見当りません") { return Meaning(code: .notFound, english: "No data for this number") }
        if sentence.hasPrefix("お問合せ番号:") || sentence.hasPrefix("お問合せ番号：") {
            return Meaning(code: .invalidNumber, english: "Check the number")
        }
        return nil
    }

    static let pageWords = [
        "お届け状況確認", "お届物詳細", "発送日", "お問合せ番号", "お届け状況", "店所", "日時", delivered, notFound,
        "桁数が不足しています", "数字のみを入力してください", "桁数がオーバーしています", "西濃運輸", "受 付", "発 送", "中 継",
        "到 着", "持 出", "配 達", "持 戻",
    ] + steps.keys
}
