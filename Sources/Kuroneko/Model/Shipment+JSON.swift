import Foundation

// The JSON form of the model, documented in docs/SCHEMA.md: snake_case keys (printed sorted, by
// `JSONEncoder.kuroneko`), `null` for every absent value (synthesised Codable would leave such keys out).

extension Shipment: Codable {
    enum CodingKeys: String, CodingKey {
        case trackingNumber = "tracking_number", carrier, status, product
        case scheduledDelivery = "scheduled_delivery", events
        case requestedDelivery = "requested_delivery"
        case deliveredAt = "delivered_at"
        case carriersAsked = "carriers_asked"
        case changeDeliveryURL = "change_delivery_url"
        case shipDate = "ship_date"
        case offices
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(trackingNumber.digits, forKey: .trackingNumber)
        try container.encode(carrier, forKey: .carrier)
        try container.encode(status, forKey: .status)
        try container.encode(product, forKey: .product)
        try container.encode(scheduledDelivery, forKey: .scheduledDelivery)
        try container.encode(requestedDelivery, forKey: .requestedDelivery)
        try container.encode(events, forKey: .events)
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encodeIfPresent(carriersAsked, forKey: .carriersAsked)
        try container.encodeIfPresent(changeDeliveryURL?.absoluteString, forKey: .changeDeliveryURL)
        try container.encodeIfPresent(shipDate, forKey: .shipDate)
        try container.encodeIfPresent(offices, forKey: .offices)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let digits = try container.decode(String.self, forKey: .trackingNumber)
        do {
            trackingNumber = try TrackingNumber(echoedByPage: digits)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .trackingNumber, in: container, debugDescription: error.description)
        }
        carrier = try container.decode(Carrier.self, forKey: .carrier)
        status = try container.decode(ShipmentStatus.self, forKey: .status)
        product = try container.decodeIfPresent(String.self, forKey: .product)
        scheduledDelivery = try container.decodeIfPresent(ScheduledDelivery.self, forKey: .scheduledDelivery)
        requestedDelivery = try container.decodeIfPresent(ScheduledDelivery.self, forKey: .requestedDelivery)
        events = try container.decode([TrackingEvent].self, forKey: .events)
        deliveredAt = try container.decodeIfPresent(JapanDateTime.self, forKey: .deliveredAt)
        carriersAsked = try container.decodeIfPresent([Carrier].self, forKey: .carriersAsked)
        changeDeliveryURL = try container.decodeIfPresent(String.self, forKey: .changeDeliveryURL).flatMap(
            URL.init(string:))
        shipDate = try container.decodeIfPresent(JapanDateTime.self, forKey: .shipDate)
        offices = try container.decodeIfPresent([CarrierOffice].self, forKey: .offices)
    }
}

extension ShipmentStatus: Codable {
    enum CodingKeys: String, CodingKey {
        case code, label
        case labelEnglish = "label_en"
        case summary, note
        case isTerminal = "terminal"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(label, forKey: .label)
        try container.encode(labelEnglish, forKey: .labelEnglish)
        try container.encode(summary, forKey: .summary)
        try container.encode(note, forKey: .note)
        try container.encode(isTerminal, forKey: .isTerminal)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(StatusCode.self, forKey: .code)
        label = try container.decode(String.self, forKey: .label)
        labelEnglish = try container.decodeIfPresent(String.self, forKey: .labelEnglish)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        isTerminal = try container.decode(Bool.self, forKey: .isTerminal)
    }
}

extension TrackingEvent: Codable {
    enum CodingKeys: String, CodingKey {
        case label
        case labelEnglish = "label_en"
        case code, at
        case dateText = "date_text"
        case place, detail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(labelEnglish, forKey: .labelEnglish)
        try container.encode(code, forKey: .code)
        try container.encode(at, forKey: .at)
        try container.encode(dateText, forKey: .dateText)
        try container.encode(place, forKey: .place)
        try container.encodeIfPresent(detail, forKey: .detail)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label = try container.decode(String.self, forKey: .label)
        labelEnglish = try container.decodeIfPresent(String.self, forKey: .labelEnglish)
        code = try container.decode(StatusCode.self, forKey: .code)
        at = try container.decodeIfPresent(JapanDateTime.self, forKey: .at)
        dateText = try container.decodeIfPresent(String.self, forKey: .dateText)
        place = try container.decodeIfPresent(String.self, forKey: .place)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
    }
}

extension ScheduledDelivery: Codable {
    enum CodingKeys: String, CodingKey {
        case raw, date
        case windowStart = "window_start"
        case windowEnd = "window_end"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(raw, forKey: .raw)
        try container.encode(date?.dateText, forKey: .date)
        try container.encode(windowStart, forKey: .windowStart)
        try container.encode(windowEnd, forKey: .windowEnd)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        raw = try container.decode(String.self, forKey: .raw)
        date = try container.decodeIfPresent(JapanDateTime.self, forKey: .date)
        windowStart = try container.decodeIfPresent(String.self, forKey: .windowStart)
        windowEnd = try container.decodeIfPresent(String.self, forKey: .windowEnd)
    }
}

extension JapanDateTime: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = JapanDateTime(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not YYYY-MM-DD or YYYY-MM-DDTHH:MM:00+09:00")
        }
        self = value
    }
}

extension JSONEncoder {
    /// An encoder for Kuroneko's JSON, the same everywhere it is printed or served: keys sorted (stable
    /// output), slashes unescaped (`"01/03　14:00-16:00"` stays readable), optionally indented.
    public static func kuroneko(prettyPrinted: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            prettyPrinted
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
