import Foundation

extension Carrier {
    /// 日本郵便: ゆうパック, ゆうパケット, レターパック, 書留 and international mail.
    public static let japanPost = Carrier(registered: "japanpost")
}

extension CarrierDefinition {
    static let japanPost = CarrierDefinition(
        carrier: .japanPost, name: "日本郵便", englishName: "Japan Post", aliases: ["jp", "yubin"],
        numberForms: [
            NumberForm(.twelveDigits, check: .mod7), NumberForm(.elevenDigits, check: .mod7), NumberForm(.thirteenDigits),
            NumberForm(.international),
        ],
        numberFormsInWords: "11, 12 or 13 digits, or are international like EN123456785JP",
        defaultEndpoint: URL(string: "https://trackings.post.japanpost.jp")!,
        site: { JapanPostSite(origin: $0.absoluteString.trimmingTrailingSlashes) }, parser: JapanPostPageParser(),
        // One number per request: one request at a time, a second apart.
        politeness: Politeness(maxConcurrentRequests: 1, minimumRequestInterval: .seconds(1)),
        trackingLink: .get(
            "https://trackings.post.japanpost.jp/services/srv/search/direct?reqCodeNo1={number}&searchKind=S002&locale=ja"),
        redeliveryLink: .get("https://trackings.post.japanpost.jp/delivery/deli/"),
        mail: MailHints(
            names: ["日本郵便", "ゆうパック", "ゆうパケット", "ゆうメール", "レターパック", "書留", "郵便局"],
            senderDomains: ["japanpost.jp"], linkHost: "post.japanpost.jp", linkFields: ["reqCodeNo1"],
            printedGroups: [[3, 2, 5, 1]]),
        colors: ("#c8102e", "#ffffff"),
        // 7 days (a notice of 4/21 keeps until 4/28; 10 on request). No source gives チルド's: the common, shorter
        // 3 days, so nobody is told too late. Its page names the offices; otherwise the customer service centre
        // (from a mobile telephone; 0120-23-28-86 from a fixed line).
        keeping: KeepingRule(
            days: 7, coolDays: 3,
            serviceCentre: CarrierOffice(
                role: KeepingRule.serviceCentreRole, name: "日本郵便カスタマーサービスセンター", telephone: "0570-046-666")))
}

extension JapanPostPageParser: CarrierPageParser {}

/// Japan Post: up to ten numbers in one GET of the search, whose list answer gives each one's latest row; a
/// number's `direct` page (its whole history) is fetched only when that row differs from the one seen with the
/// history kept (or the number is new here), so an unchanged batch of ten costs one request. One number alone
/// is asked on its `direct` page. Every request after a lookup's first waits its turn in the budget.
struct JapanPostSite: CarrierSite {
    let origin: String
    var carrier: Carrier { .japanPost }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = JapanPostPageParser()
    private let histories = JapanPostHistories()

    init(origin: String) {
        self.origin = origin
    }

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        if numbers.count == 1 { return [try await detail(numbers[0], through: exchange, now: now)] }
        var fields = numbers.enumerated().map { ("requestNo\($0.offset + 1)", $0.element.digits) }
        fields += [("search", "追跡スタート"), ("locale", "ja")]
        let url = try Self.url(origin + "/services/srv/search/?" + FormEncoding.encode(fields))
        let response = try await exchange.fetch(url)
        let listed = try read(response, from: url) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
        var shipments: [Shipment] = []
        for (shipment, answer) in zip(listed, JapanPostListing.answers(for: listed, kept: histories.history(of:))) {
            switch answer {
            case .listed(let listed):
                histories.keep(listed, row: nil)
                shipments.append(listed)
            case .kept(let kept):
                shipments.append(kept)
            case .fetch(let row):
                shipments.append(try await detail(shipment.trackingNumber, through: exchange, now: now, seen: row))
            }
        }
        return shipments
    }

    /// The number's `direct` page, kept with the list row it was fetched for (or its own latest row).
    private func detail(
        _ number: TrackingNumber, through exchange: UpstreamExchange, now: Date, seen row: JapanPostListing.Row? = nil
    ) async throws -> Shipment {
        let query = FormEncoding.encode([("reqCodeNo1", number.digits), ("searchKind", "S002"), ("locale", "ja")])
        let url = try Self.url(origin + "/services/srv/search/direct?" + query)
        let response = try await exchange.fetch(url)
        let shipments = try read(response, from: url) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: [number], now: now)
        }
        for shipment in shipments { histories.keep(shipment, row: row ?? JapanPostListing.Row(shipment)) }
        return shipments[0]
    }
}
