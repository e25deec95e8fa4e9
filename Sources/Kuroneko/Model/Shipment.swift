import Foundation

/// Everything a carrier's tracking page says about one parcel.
public struct Shipment: Hashable, Sendable {
    public var trackingNumber: TrackingNumber
    /// Whose page this came from: `yamato`, `sagawa` or `japanpost`.
    public var carrier: Carrier
    public var status: ShipmentStatus
    /// 商品名 (宅急便, ネコポス …), or `nil` when the page shows `-` or nothing.
    public var product: String?
    /// お届け予定日時, or `nil` when the page shows `-` or nothing.
    public var scheduledDelivery: ScheduledDelivery?
    /// お届け希望日時 or お届け希望時間: the window the recipient asked for (it can be set while the forecast
    /// is `-`), or `nil` when the page shows none.
    public var requestedDelivery: ScheduledDelivery?
    /// The history rows in page order, oldest first.
    public var events: [TrackingEvent]
    /// When the parcel was delivered: the time of the last delivered row, if the parcel is delivered.
    public var deliveredAt: JapanDateTime?
    /// For a number no carrier knows (`not_found` after asking each it could be at): the carriers asked, in
    /// order; `nil` otherwise (and left out of the JSON).
    public var carriersAsked: [Carrier]?
    /// Where the recipient changes the delivery's day, time or place: the address of the page's own
    /// 詳細確認／日時・場所変更 button, kept only when it is an https address at the carrier; `nil` (and left out of
    /// the JSON) when the page has none.
    public var changeDeliveryURL: URL?
    /// The day the parcel was shipped, where the page gives it (Sagawa's 出荷日).
    public var shipDate: JapanDateTime? = nil
    /// The offices to call about it, with their telephone numbers, where the page gives them (Sagawa's
    /// 集荷・配達に関するお問い合せ, Japan Post's 窓口店).
    public var offices: [CarrierOffice]? = nil

    public init(
        trackingNumber: TrackingNumber, carrier: Carrier = .yamato, status: ShipmentStatus, product: String?,
        scheduledDelivery: ScheduledDelivery?, requestedDelivery: ScheduledDelivery? = nil, events: [TrackingEvent],
        deliveredAt: JapanDateTime?
    ) {
        self.requestedDelivery = requestedDelivery
        self.trackingNumber = trackingNumber
        self.carrier = carrier
        self.status = status
        self.product = product
        self.scheduledDelivery = scheduledDelivery
        self.events = events
        self.deliveredAt = deliveredAt
    }
}

/// The parcel's current state, as the block's state title says it.
public struct ShipmentStatus: Hashable, Sendable {
    public var code: StatusCode
    /// The state title as written on the page, e.g. `持戻（ご不在）`.
    public var label: String
    /// The label in English, Yamato's official wording where it publishes one; `nil` for unknown labels.
    public var labelEnglish: String?
    public var summary: String?
    public var note: String?
    /// True when the parcel will not change any more: delivered, invalid number, or returned to the sender.
    public var isTerminal: Bool

    public init(
        code: StatusCode, label: String, labelEnglish: String?, summary: String?, note: String?, isTerminal: Bool
    ) {
        self.code = code
        self.label = label
        self.labelEnglish = labelEnglish
        self.summary = summary
        self.note = note
        self.isTerminal = isTerminal
    }
}

/// One row of the parcel's history.
public struct TrackingEvent: Hashable, Sendable {
    public var label: String
    public var labelEnglish: String?
    public var code: StatusCode
    /// The row's time with its year resolved, or `nil` when the row has no date.
    public var at: JapanDateTime?
    /// The date as the page wrote it (`10月27日 11:27`), or `nil` when empty.
    public var dateText: String?
    /// The office that scanned the parcel, or `nil` when empty.
    public var place: String?
    /// What the page adds to the row (Japan Post's 詳細, e.g. 保管期間経過のため), or `nil`.
    public var detail: String? = nil

    public init(
        label: String, labelEnglish: String?, code: StatusCode, at: JapanDateTime?, dateText: String?, place: String?
    ) {
        self.label = label
        self.labelEnglish = labelEnglish
        self.code = code
        self.at = at
        self.dateText = dateText
        self.place = place
    }
}

/// お届け予定日時: the day, and the time window when one is given.
public struct ScheduledDelivery: Hashable, Sendable {
    /// The text as the page wrote it, e.g. `01/03　14:00-16:00`.
    public var raw: String
    /// The day with its year resolved; `nil` only if the page used a wording without `MM/DD`.
    public var date: JapanDateTime?
    /// Start of the window as `HH:MM`, or `nil` when no window is given.
    public var windowStart: String?
    public var windowEnd: String?

    public init(raw: String, date: JapanDateTime?, windowStart: String?, windowEnd: String?) {
        self.raw = raw
        self.date = date
        self.windowStart = windowStart
        self.windowEnd = windowEnd
    }
}

/// An office to call about a parcel, as its carrier's page names it: its part (`配達`, `集荷`, `引受`, or the
/// page's English), its name and its telephone number.
public struct CarrierOffice: Hashable, Sendable, Codable {
    public var role: String
    public var name: String
    public var telephone: String?

    public init(role: String, name: String, telephone: String?) {
        self.role = role
        self.name = name
        self.telephone = telephone
    }
}

extension Shipment {
    /// Whether the page asks the person to get in touch (its sentence says お問い合わせ, or the parcel is held,
    /// brought back, under investigation or returned): then the offices to call are shown.
    public var asksToCall: Bool {
        if status.summary?.contains("お問い合わせ") == true || status.summary?.contains("お問い合せ") == true { return true }
        switch status.code {
        case .exception, .returned, .attemptFailed, .availableForPickup: return true
        default: return false
        }
    }
}
