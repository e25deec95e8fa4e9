import Foundation

extension Carrier {
    /// ヤマト運輸 (クロネコヤマト): 宅急便, ネコポス and the rest.
    public static let yamato = Carrier(registered: "yamato")
}

extension CarrierDefinition {
    static let yamato = CarrierDefinition(
        carrier: .yamato, name: "ヤマト運輸", englishName: "Yamato Transport", aliases: ["kuroneko"],
        numberForms: [NumberForm(.twelveDigits, check: .mod7)], numberFormsInWords: "12 digits",
        defaultEndpoint: TrackingClient.Configuration.yamatoEndpoint,
        site: { YamatoSite(endpoint: $0) }, parser: TrackingPageParser(),
        // Two requests at once, a second apart.
        politeness: Politeness(maxConcurrentRequests: 2, minimumRequestInterval: .seconds(1)),
        trackingLink: .post(
            "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko", fields: ["number00": "1", "number01": "{number}"]),
        // The address its result page's 詳細確認／日時・場所変更 button leads to.
        redeliveryLink: .get("https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno={number}"),
        mail: MailHints(
            names: ["ヤマト運輸", "クロネコヤマト", "ヤマト宅急便", "宅急便", "ネコポス"],
            senderDomains: ["kuronekoyamato.co.jp"], linkHost: "kuronekoyamato.co.jp",
            linkFields: (1...10).map { String(format: "no%02d", $0) } + ["pno", "id"]),
        colors: ("#ffd200", "#1a1a1a"),
        // About 7 days from the first failed attempt, a cool parcel about 3; its pages name no office's telephone,
        // so the service centre's number for mobile telephones (8:00–21:00; 0120-01-9625 from a fixed line).
        keeping: KeepingRule(
            days: 7, coolDays: 3,
            serviceCentre: CarrierOffice(
                role: KeepingRule.serviceCentreRole, name: "ヤマト運輸サービスセンター", telephone: "0570-200-000")),
        // The link its own notification mails carry (the form's page answers a GET of this style).
        mailLink: .get("https://toi.kuronekoyamato.co.jp/cgi-bin/tneko?type=1&no01={number}"))
}

extension TrackingPageParser: CarrierPageParser {}

/// Yamato: one POST of up to ten numbers to the form, answered with every parcel's whole page.
struct YamatoSite: CarrierSite {
    let endpoint: URL
    var carrier: Carrier { .yamato }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = TrackingPageParser()

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        let request = UpstreamRequest(
            url: endpoint, method: "POST",
            headers: ["Content-Type": TrackingForm.contentType, "User-Agent": exchange.userAgent, "Accept": "text/html"],
            body: TrackingForm.body(for: numbers), timeout: exchange.timeout)
        let response = try await exchange.send(request)
        guard (200...299).contains(response.status) else {
            throw UpstreamAttemptFailure.httpStatus(response.status, endpoint: endpoint)
        }
        return try read(response, from: endpoint) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
    }
}
