/// The model of the app this project grew from, for programs written against it: what that app decoded
/// from the tracking page by hand, now offered as JSON, so such a program can switch from scraping by
/// changing its base URL.
///
/// `{"deriveryList": [{"deliveryID": 327754459830, "statusList": [{"status": "荷物受付", "date": "10/09",
/// "time": "15:33", "shopName": "羽田クロノゲートベース"}]}]}`. The key really is spelled `deriveryList`;
/// `deliveryID` is the number as an integer; `status` the Japanese label as written; `date` `MM/DD`;
/// `time` `HH:MM` or `null`; `shopName` the place (empty when the page names none). A number Yamato does
/// not know, or an invalid one, has an empty `statusList`; no numbers, an empty `deriveryList`.
public struct TnekoModel: Codable, Sendable, Hashable {
    public var deriveryList: [Delivery]

    public struct Delivery: Codable, Sendable, Hashable {
        public var deliveryID: Int
        public var statusList: [Status]

        public init(deliveryID: Int, statusList: [Status]) {
            self.deliveryID = deliveryID
            self.statusList = statusList
        }
    }

    public struct Status: Codable, Sendable, Hashable {
        public var status: String
        public var date: String
        public var time: String?
        public var shopName: String

        public init(status: String, date: String, time: String?, shopName: String) {
            self.status = status
            self.date = date
            self.time = time
            self.shopName = shopName
        }

        private enum CodingKeys: String, CodingKey {
            case status, date, time, shopName
        }

        /// `time` is written as `null` when absent, as the original model's JSON had it, not left out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(status, forKey: .status)
            try container.encode(date, forKey: .date)
            try container.encode(time, forKey: .time)
            try container.encode(shopName, forKey: .shopName)
        }
    }

    public init(deriveryList: [Delivery]) {
        self.deriveryList = deriveryList
    }

    /// The shipments in the original model, in the same order. Events without a date are left out: the
    /// model cannot express them. Numbers Yamato does not know, and invalid ones, have no events.
    public init(_ shipments: [Shipment]) {
        deriveryList = shipments.map { shipment in
            let known = ![.notFound, .invalidNumber].contains(shipment.status.code)
            return Delivery(
                deliveryID: Int(shipment.trackingNumber.digits) ?? 0,
                statusList: known ? shipment.events.compactMap(Self.status) : [])
        }
    }

    private static func status(of event: TrackingEvent) -> Status? {
        guard let at = event.at else { return nil }
        return Status(
            status: event.label, date: twoDigits(at.month) + "/" + twoDigits(at.day), time: at.time?.text,
            shopName: event.place ?? "")
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
